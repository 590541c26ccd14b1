import torch
from torch import nn


class LayerNorm2d(nn.LayerNorm):
    def forward(self, x):
        x = x.permute(0, 2, 3, 1)
        x = super().forward(x)
        return x.permute(0, 3, 1, 2)


class Stem(nn.Module):
    def __init__(self, ch=8):
        super().__init__()
        self.conv = nn.Conv2d(3, ch, 2, stride=2)
        self.norm = LayerNorm2d(ch)

    def forward(self, x):
        y = self.norm(self.conv(x))
        B, C = y.shape[:2]
        return y.view(B, C, -1)


def main():
    Stem()(torch.randn(2, 3, 8, 8))
