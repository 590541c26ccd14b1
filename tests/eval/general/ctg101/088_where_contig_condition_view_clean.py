import torch
from torch import nn


class SparseGate(nn.Module):
    def __init__(self, channels, threshold=0.0):
        super().__init__()
        self.conv = nn.Conv1d(channels, channels, 1)
        self.threshold = threshold

    def forward(self, x):
        b, t, c = x.shape
        feats = self.conv(x.transpose(1, 2)).transpose(1, 2)
        gated = torch.where(x > self.threshold, feats, x)
        return gated.view(b * t, c)


def main():
    gate = SparseGate(5)
    print(gate(torch.randn(3, 8, 5)).shape)
