import torch
import torch.nn.functional as F
from torch import nn


class SDPAAttention(nn.Module):
    def __init__(self, dim=32, heads=4):
        super().__init__()
        self.h = heads
        self.q, self.k, self.v = nn.Linear(dim, dim), nn.Linear(dim, dim), nn.Linear(dim, dim)
        self.o = nn.Linear(dim, dim)

    def shape(self, t, B, N):
        return t.view(B, N, self.h, -1).transpose(1, 2)

    def forward(self, x):
        B, N, C = x.shape
        q, k, v = (self.shape(p(x), B, N) for p in (self.q, self.k, self.v))
        out = F.scaled_dot_product_attention(q, k, v, dropout_p=0.0)
        out = out.transpose(1, 2).view(B, N, C)
        return self.o(out)


def main():
    SDPAAttention()(torch.randn(2, 5, 32))
