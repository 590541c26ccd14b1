import torch
from torch import nn


def take_first(x, n):
    return x.narrow(0, 0, n)


class Sampler(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.proj = nn.Linear(dim, dim)

    def forward(self, x, n_keep):
        kept = take_first(self.proj(x), n_keep)
        k, t, d = kept.shape
        return kept.view(k * t, d)


def main():
    sampler = Sampler(8)
    print(sampler(torch.randn(5, 4, 8), 3).shape)
