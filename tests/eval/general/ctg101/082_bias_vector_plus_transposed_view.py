import torch
from torch import nn


class ChannelBias(nn.Module):
    def __init__(self, channels):
        super().__init__()
        self.conv = nn.Conv2d(channels, channels, 3, padding=1)
        self.bias = nn.Parameter(torch.zeros(channels))

    def forward(self, x):
        b, c, h, w = x.shape
        y = self.conv(x).permute(0, 2, 3, 1)
        y = self.bias + y
        return y.view(b, h * w * c)  # hazard: CTG101


def main():
    layer = ChannelBias(4)
    print(layer(torch.randn(2, 4, 5, 5)).shape)
