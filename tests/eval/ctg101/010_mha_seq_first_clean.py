import torch
from torch import nn


class TokenMixer(nn.Module):
    def __init__(self, dim=16, heads=4):
        super().__init__()
        self.attn = nn.MultiheadAttention(dim, heads)

    def forward(self, x):
        y, w = self.attn(x, x, x)
        T, B, C = y.shape
        flat = y.view(T * B, C)
        return flat, w.view(B, -1)


def main():
    m = TokenMixer()
    m.train()
    m(torch.randn(5, 2, 16))
