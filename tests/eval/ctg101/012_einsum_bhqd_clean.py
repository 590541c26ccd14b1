import torch as th
from torch import nn


def attend(q, k, v):
    scores = th.einsum("bhqd,bhkd->bhqk", q, k) / q.shape[-1] ** 0.5
    return th.einsum("bhqk,bhkd->bhqd", scores.softmax(-1), v)


class EinsumAttention(nn.Module):
    def __init__(self, dim=32, heads=4):
        super().__init__()
        self.heads = heads
        self.to_qkv = nn.Linear(dim, 3 * dim)

    def forward(self, x):
        b, n, c = x.shape
        q, k, v = self.to_qkv(x).chunk(3, dim=-1)
        q, k, v = (t.reshape(b, n, self.heads, -1).transpose(1, 2) for t in (q, k, v))
        ctx = attend(q, k, v)
        d = ctx.shape[-1]
        return ctx.view(b * self.heads, n, d)


def main():
    EinsumAttention()(th.randn(2, 6, 32))
