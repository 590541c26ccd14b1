"""Unfusing a packed (3d, d) QKV weight along dim 0: every chunk is contiguous."""
import torch
import torch.nn as nn


class Unfused(nn.Module):
    def __init__(self, packed):
        super().__init__()
        q, k, v = packed.chunk(3, dim=0)
        self.wq = nn.Parameter(q)
        self.wk = nn.Parameter(k)
        self.wv = nn.Parameter(v)

    def forward(self, x):
        return x @ self.wq.t()


def main():
    m = Unfused(torch.randn(24, 8))
    assert m(torch.randn(2, 8)).shape == (2, 8)


if __name__ == "__main__":
    main()
