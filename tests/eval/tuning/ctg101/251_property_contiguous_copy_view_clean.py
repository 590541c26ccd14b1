import torch
from torch import nn


class TiedHead(nn.Module):
    def __init__(self, dim, vocab):
        super().__init__()
        self.weight = nn.Parameter(torch.randn(vocab, dim))

    @property
    def packed(self):
        return self.weight.t().contiguous()

    def signature(self):
        return self.packed.view(-1)[:4]


def main():
    print(TiedHead(3, 5).signature().shape)
