"""A helper returns a slice of a fresh projection; the caller consumes it at once."""
import torch
import torch.nn as nn


def take_queries(qkv, dim):
    return qkv[..., :dim]


class QueryPool(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.dim = dim
        self.qkv = nn.Linear(dim, 3 * dim)

    def forward(self, x):
        q = take_queries(self.qkv(x), self.dim)
        return q.mean(dim=1)


def main():
    out = QueryPool(8)(torch.randn(2, 5, 8))
    assert out.shape == (2, 8)


if __name__ == "__main__":
    main()
