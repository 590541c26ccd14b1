import torch
from torch import nn


class EvenChannelStats(nn.Module):
    def __init__(self, channels):
        super().__init__()
        self.conv = nn.Conv1d(channels, 2 * channels, 1)

    def forward(self, x):
        feats = self.conv(x).transpose(1, 2)
        even = feats[:, :, ::2]
        stats = even.double()
        b = stats.size(0)
        flat = stats.view(b, -1)  # hazard: CTG101
        return flat.mean(-1), flat.var(-1)


def main():
    model = EvenChannelStats(3)
    mean, var = model(torch.randn(2, 3, 10))
    print(mean.shape, var.shape)
