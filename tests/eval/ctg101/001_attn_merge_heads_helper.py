import torch
from torch import nn


def merge_heads(x, num_heads):
    b, n, h, d = x.shape
    return x.view(b, n, h * d)  # hazard: CTG101


class SelfAttention(nn.Module):
    def __init__(self, dim, heads):
        super().__init__()
        self.heads = heads
        self.qkv = nn.Linear(dim, dim * 3)
        self.proj = nn.Linear(dim, dim)

    def forward(self, x):
        B, N, C = x.shape
        qkv = self.qkv(x).reshape(B, N, 3, self.heads, C // self.heads).permute(2, 0, 3, 1, 4)
        q, k, v = qkv[0], qkv[1], qkv[2]
        attn = (q @ k.transpose(-2, -1)) * (C // self.heads) ** -0.5
        attn = attn.softmax(dim=-1)
        out = attn @ v
        out = out.transpose(1, 2)
        out = merge_heads(out, self.heads)
        return self.proj(out)


def main():
    m = SelfAttention(32, 4)
    m(torch.randn(2, 7, 32))
