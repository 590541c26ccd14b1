"""Mixture of experts: expert weights loaded as (E, out, in) and stored transposed."""
import torch
import torch.nn as nn


def load_experts(n, d_in, d_out):
    return torch.randn(n, d_out, d_in)


class Experts(nn.Module):
    def __init__(self, n, d_in, d_out):
        super().__init__()
        w = load_experts(n, d_in, d_out)
        self.w = nn.Parameter(w.mT)  # hazard: CTG103

    def forward(self, x):
        return torch.bmm(x, self.w)


def main():
    m = Experts(4, 8, 6)
    assert m(torch.randn(4, 3, 8)).shape == (4, 3, 6)


if __name__ == "__main__":
    main()
