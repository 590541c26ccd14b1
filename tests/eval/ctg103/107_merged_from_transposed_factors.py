"""Merged weight from transposed factors: a matmul result is row-major."""
import torch
import torch.nn as nn


def factors(d_in, d_out, rank):
    return torch.randn(d_out, rank), torch.randn(rank, d_in)


class Merged(nn.Module):
    def __init__(self, d_in, d_out, rank):
        super().__init__()
        B, A = factors(d_in, d_out, rank)
        self.weight = nn.Parameter(A.t() @ B.t())

    def forward(self, x):
        return x @ self.weight


def main():
    m = Merged(16, 8, 4)
    assert m.weight.is_contiguous() and m(torch.randn(2, 16)).shape == (2, 8)


if __name__ == "__main__":
    main()
