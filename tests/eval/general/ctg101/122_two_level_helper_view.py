import torch
from torch import nn


def _merge_batch_and_heads(x):
    b, h, t, d = x.shape
    return x.view(b * h, t, d)  # hazard: CTG101


def _to_heads(x, heads):
    b, t, d = x.shape
    x = x.view(b, t, heads, d // heads).permute(0, 2, 1, 3)
    return _merge_batch_and_heads(x)


class Attention(nn.Module):
    def __init__(self, dim, heads):
        super().__init__()
        self.heads = heads
        self.q = nn.Linear(dim, dim)
        self.k = nn.Linear(dim, dim)

    def forward(self, x):
        q = _to_heads(self.q(x), self.heads)
        k = _to_heads(self.k(x), self.heads)
        return torch.softmax(q @ k.transpose(1, 2), dim=-1)


def main():
    attn = Attention(16, 4)
    print(attn(torch.randn(2, 5, 16)).shape)
