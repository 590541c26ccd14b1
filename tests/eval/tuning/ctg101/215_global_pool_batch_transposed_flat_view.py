import torch
from torch import nn


class ChannelMajorStats(nn.Module):
    def __init__(self):
        super().__init__()
        self.pool = nn.AdaptiveMaxPool2d((1, 1))

    def forward(self, x):
        pooled = self.pool(x)
        by_channel = pooled.transpose(0, 1)
        return by_channel.view(-1)  # hazard: CTG101


def main():
    print(ChannelMajorStats()(torch.randn(3, 4, 6, 6)).shape)
