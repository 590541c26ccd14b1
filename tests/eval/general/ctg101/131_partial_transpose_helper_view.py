import functools

import torch
from torch import nn

swap_time_channels = functools.partial(torch.transpose, dim0=1, dim1=2)


class Conformerish(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.dw = nn.Conv1d(dim, dim, 5, padding=2, groups=dim)
        self.pw = nn.Linear(dim, dim)

    def forward(self, x):
        b, t, d = x.shape
        h = self.dw(swap_time_channels(x))
        h = swap_time_channels(h)
        return self.pw(h.view(b * t, d)).view(b, t, d)  # hazard: CTG101


def main():
    block = Conformerish(8)
    print(block(torch.randn(2, 9, 8)).shape)
