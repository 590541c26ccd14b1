import torch
from torch import nn


class HeadSplitAttention(nn.Module):
    def __init__(self, dim, heads):
        super().__init__()
        self.heads = heads
        self.head_dim = dim // heads
        self.qkv = nn.Linear(dim, dim * 3)
        self.out = nn.Linear(dim, dim)

    def forward(self, x):
        b, t, d = x.shape
        q, k, v = self.qkv(x).chunk(3, dim=-1)
        q = q.unflatten(-1, (self.heads, self.head_dim))
        k = k.unflatten(-1, (self.heads, self.head_dim))
        v = v.unflatten(-1, (self.heads, self.head_dim))
        q = q.view(b * t, self.heads, self.head_dim)
        k = k.reshape(b * t, self.heads, self.head_dim)
        v = v.reshape(b * t, self.heads, self.head_dim)
        attn = torch.softmax(q @ k.transpose(1, 2) / self.head_dim ** 0.5, dim=-1)
        ctx = (attn @ v).view(b, t, d)
        return self.out(ctx)


def main():
    layer = HeadSplitAttention(64, 4)
    print(layer(torch.randn(2, 9, 64)).shape)
