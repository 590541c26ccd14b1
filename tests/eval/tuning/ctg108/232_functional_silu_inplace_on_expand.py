import torch
import torch.nn.functional as F


def gated(x, gate):
    g = gate[:, None].expand(-1, x.size(1))
    F.silu(g, inplace=True)  # hazard: CTG108
    return x * g


def main():
    print(gated(torch.randn(3, 5), torch.randn(3)).shape)
