import torch
from torch import nn


class ConvResidual(nn.Module):
    """Residual around a depthwise conv that works in (B, C, T) layout."""

    def __init__(self, dim, kernel=5):
        super().__init__()
        self.dw = nn.Conv1d(dim, dim, kernel, padding=kernel // 2, groups=dim)

    def forward(self, x):
        b, t, d = x.shape
        conv = self.dw(x.transpose(1, 2))
        out = x + conv.transpose(1, 2)
        return out.view(b * t, d)


def main():
    block = ConvResidual(8)
    print(block(torch.randn(2, 10, 8)).shape)
