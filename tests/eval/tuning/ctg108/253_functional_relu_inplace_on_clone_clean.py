import torch
import torch.nn.functional as F


def positive_gate(x, gate):
    g = gate[:, None].expand(-1, x.size(1)).clone()
    F.relu(g, inplace=True)
    return x * g


def main():
    print(positive_gate(torch.randn(3, 5), torch.randn(3)).shape)
