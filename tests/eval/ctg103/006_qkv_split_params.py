"""Unfusing a packed (d, 3d) QKV projection into three parameters."""
import torch
import torch.nn as nn


class Unfused(nn.Module):
    def __init__(self, packed):
        super().__init__()
        d = packed.shape[0]
        self.wq = nn.Parameter(packed[:, :d])  # hazard: CTG103
        self.wk = nn.Parameter(packed[:, d:2 * d].contiguous())
        self.wv = nn.Parameter(packed[:, 2 * d:].contiguous())

    def forward(self, x):
        return x @ self.wq, x @ self.wk, x @ self.wv


def main():
    m = Unfused(torch.randn(8, 24))
    q, k, v = m(torch.randn(2, 8))
    assert q.shape == (2, 8)


if __name__ == "__main__":
    main()
