import torch
from torch import nn


def reorder(x, perm=(0, 2, 1)):
    return x.permute(perm)


class ChannelMixer(nn.Module):
    def __init__(self, tokens, dim):
        super().__init__()
        self.mix = nn.Linear(dim, dim)
        self.tokens = tokens

    def forward(self, x):
        y = reorder(x)
        b, d, t = y.shape
        planes = y.view(b * d, t)  # hazard: CTG101
        return self.mix(planes.view(b, d, t).transpose(1, 2))


def main():
    mixer = ChannelMixer(7, 5)
    print(mixer(torch.randn(2, 7, 5)).shape)
