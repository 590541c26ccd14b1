import torch
from torch import nn


def split_heads(t, heads):
    B, N, C = t.shape
    return t.view(B, N, heads, C // heads).transpose(1, 2)


class Attention(nn.Module):
    def __init__(self, dim=16, heads=4):
        super().__init__()
        self.heads = heads
        self.qkv = nn.Linear(dim, 3 * dim)

    def forward(self, x):
        q, k, v = self.qkv(x).chunk(3, dim=-1)
        q, k, v = (split_heads(t, self.heads) for t in (q, k, v))
        out = torch.softmax(q @ k.transpose(-1, -2), -1) @ v
        return out.transpose(1, 2).reshape(x.shape)


def main():
    Attention()(torch.randn(2, 5, 16))
