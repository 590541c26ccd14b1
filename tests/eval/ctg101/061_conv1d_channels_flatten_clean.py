import torch
from torch import nn


class TemporalConv(nn.Module):
    def __init__(self, d=8, k=3):
        super().__init__()
        self.conv1d = nn.Conv1d(d, d, k, padding=k // 2)

    def forward(self, x_btd):
        y = self.conv1d(x_btd.transpose(1, 2))
        B, D, L = y.shape
        return y.view(B, D * L)


def main():
    TemporalConv()(torch.randn(2, 6, 8))
