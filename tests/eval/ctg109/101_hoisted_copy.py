"""Weight-shared projection copied once, above the loop."""
import torch
import torch.nn as nn


class Tower(nn.Module):
    def __init__(self, dim, depth):
        super().__init__()
        self.blocks = nn.ModuleList(nn.Linear(dim, dim) for _ in range(depth))
        self.proj = nn.Linear(dim, dim)

    def forward(self, x):
        w = self.proj.weight.t().contiguous()
        for block in self.blocks:
            x = block(x) @ w
        return x


def main():
    with torch.no_grad():
        assert Tower(8, 3)(torch.randn(2, 8)).shape == (2, 8)


if __name__ == "__main__":
    main()
