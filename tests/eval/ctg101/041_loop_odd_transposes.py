import torch
from torch import nn


class AxialMixer(nn.Module):
    """Alternates mixing along the two axes; each block swaps them."""

    def __init__(self, n=6, depth=3):
        super().__init__()
        self.blocks = nn.ModuleList(nn.Linear(n, n) for _ in range(depth))

    def forward(self, x):
        for blk in self.blocks:
            x = blk(x).transpose(1, 2)
        return x

    def flat(self, x):
        y = self.forward(x)
        return y.view(y.shape[0], -1)  # hazard: CTG101


def main():
    AxialMixer(depth=3).flat(torch.randn(2, 6, 6))
