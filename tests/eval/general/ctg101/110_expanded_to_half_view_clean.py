import torch
from torch import nn


class HalfPositional(nn.Module):
    def __init__(self, seq_len, dim):
        super().__init__()
        self.pos = nn.Parameter(torch.randn(1, seq_len, dim) * 0.02)

    def forward(self, x):
        b, t, d = x.shape
        pos16 = self.pos.expand(b, t, d).half()
        tokens = pos16.view(b * t, d)
        return x.half() + tokens.view(b, t, d)


def main():
    pe = HalfPositional(6, 8)
    with torch.no_grad():
        print(pe(torch.randn(3, 6, 8)).dtype)
