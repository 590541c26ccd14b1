"""Swin-style stages: the tensor made contiguous is the loop-carried activation."""
import torch
import torch.nn as nn


class Stages(nn.Module):
    def __init__(self, dim, depth):
        super().__init__()
        self.mix = nn.ModuleList(nn.Linear(dim, dim) for _ in range(depth))

    def forward(self, x):  # (B, C, L)
        for mix in self.mix:
            x = mix(x.transpose(1, 2).contiguous()).transpose(1, 2)
        return x


def main():
    with torch.no_grad():
        assert Stages(8, 3)(torch.randn(2, 8, 5)).shape == (2, 8, 5)


if __name__ == "__main__":
    main()
