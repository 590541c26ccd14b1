import torch
from torch import nn


class Base(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.perm = (0, 2, 1)
        self.proj = nn.Linear(dim, dim)

    def forward(self, x):
        h = self.proj(x).permute(*self.perm)
        return h.reshape(h.size(0), -1)


class Flat(Base):
    def __init__(self, dim):
        super().__init__(dim)
        self.perm = (0, 1, 2)

    def forward(self, x):
        h = self.proj(x).permute(*self.perm)
        return h.view(h.size(0), -1)


def main():
    print(Base(4)(torch.randn(2, 3, 4)).shape)
    print(Flat(4)(torch.randn(2, 3, 4)).shape)
