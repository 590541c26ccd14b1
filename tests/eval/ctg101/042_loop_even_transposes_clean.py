import torch
from torch import nn


class AxialMixer(nn.Module):
    def __init__(self, n=6, depth=2):
        super().__init__()
        self.depth = depth
        self.mix = nn.Linear(n, n)

    def forward(self, x):
        for _ in range(self.depth):
            x = x.transpose(1, 2)
            x = x * 2.0
        return x

    def flat(self, x):
        y = self.forward(x)
        return y.view(y.shape[0], -1)


def main():
    AxialMixer(depth=2).flat(torch.randn(2, 6, 6))
