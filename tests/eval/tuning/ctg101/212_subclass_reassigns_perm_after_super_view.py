import torch
from torch import nn


class Frontend(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.perm = (0, 1, 2)
        self.proj = nn.Linear(dim, dim)

    def forward(self, x):
        h = self.proj(x).permute(*self.perm)
        return h.view(h.size(0), -1)


class ChannelFrontend(Frontend):
    def __init__(self, dim):
        super().__init__(dim)
        self.perm = (0, 2, 1)

    def forward(self, x):
        h = self.proj(x).permute(*self.perm)
        return h.view(h.size(0), -1)  # hazard: CTG101


def main():
    print(Frontend(4)(torch.randn(2, 3, 4)).shape)
    print(ChannelFrontend(4)(torch.randn(2, 3, 4)).shape)
