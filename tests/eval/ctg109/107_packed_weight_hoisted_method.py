"""Recurrent cell whose packing method returns a row-major copy, called once before the loop."""
import torch
import torch.nn as nn


class Recurrent(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.cell = nn.Linear(dim, dim)

    def packed(self):
        return self.cell.weight.detach().t().contiguous()

    def forward(self, x, steps):
        w = self.packed()
        h = torch.zeros_like(x)
        for _ in range(steps):
            h = torch.tanh(x + h @ w)
        return h


def main():
    assert Recurrent(6)(torch.randn(2, 6), 4).shape == (2, 6)


if __name__ == "__main__":
    main()
