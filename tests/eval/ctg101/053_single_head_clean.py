import torch
from torch import nn


class Attention(nn.Module):
    def __init__(self, dim=8, heads=1):
        super().__init__()
        self.heads = heads
        self.qkv = nn.Linear(dim, 3 * dim)

    def forward(self, x):
        B, N, C = x.shape
        q, k, v = self.qkv(x).view(B, N, 3, self.heads, C // self.heads).permute(2, 0, 3, 1, 4)
        out = (q @ k.transpose(-2, -1)).softmax(-1) @ v
        return self.merge(out.transpose(1, 2), B, N, C)

    @staticmethod
    def merge(t, B, N, C):
        return t.view(B, N, C)


def main():
    Attention(heads=1)(torch.randn(2, 5, 8))
