import torch
from torch import nn


def split_heads(qkv, heads):
    b, t, three_d = qkv.shape
    d = three_d // 3
    q, k, v = qkv.split(d, dim=-1)
    q = q.reshape(b, t, heads, d // heads).transpose(1, 2)
    k = k.reshape(b, t, heads, d // heads).transpose(1, 2)
    v = v.reshape(b, t, heads, d // heads).transpose(1, 2)
    return q, k, v


class Attention(nn.Module):
    def __init__(self, dim, heads):
        super().__init__()
        self.heads = heads
        self.qkv = nn.Linear(dim, 3 * dim)

    def forward(self, x):
        b, t, d = x.shape
        heads = split_heads(self.qkv(x), self.heads)
        q = heads[0].reshape(b * self.heads, t, -1)
        k = heads[1].reshape(b * self.heads, t, -1)
        v = heads[2].contiguous().view(b * self.heads, t, -1)
        ctx = torch.bmm(torch.softmax(torch.bmm(q, k.transpose(1, 2)), -1), v)
        return ctx.view(b, self.heads, t, -1).transpose(1, 2).reshape(b, t, d)


def main():
    attn = Attention(16, 4)
    print(attn(torch.randn(2, 5, 16)).shape)
