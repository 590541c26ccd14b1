import torch
from torch import nn


class CausalSelfAttention(nn.Module):
    def __init__(self, dim, heads, max_len):
        super().__init__()
        self.heads = heads
        self.qkv = nn.Linear(dim, 3 * dim)
        causal = torch.tril(torch.ones(max_len, max_len, dtype=torch.bool))
        self.register_buffer("mask", causal[None, None].expand(1, heads, max_len, max_len))  # hazard: CTG103

    def forward(self, x):
        b, t, d = x.shape
        q, k, v = self.qkv(x).view(b, t, 3, self.heads, -1).permute(2, 0, 3, 1, 4)
        scores = q @ k.transpose(-1, -2) / q.size(-1) ** 0.5
        scores = scores.masked_fill(~self.mask[:, :, :t, :t], float("-inf"))
        return (torch.softmax(scores, -1) @ v).transpose(1, 2).reshape(b, t, d)


def main():
    attn = CausalSelfAttention(16, 4, 32)
    print(attn(torch.randn(2, 7, 16)).shape)
