import torch
import torch.nn as nn


class FlashStyleAttention(nn.Module):
    """Packs (B, H, N, D) into (B*H, N, D) for a varlen kernel."""

    def __init__(self, dim, num_heads=4):
        super().__init__()
        self.h = num_heads
        self.qkv = nn.Linear(dim, dim * 3, bias=False)

    def _to_bh(self, t):
        b, h, n, d = t.shape
        return t.view(b * h, n, d)  # hazard: CTG101

    def forward(self, x):
        B, N, C = x.shape
        qkv = self.qkv(x).view(B, N, 3, self.h, C // self.h).permute(2, 0, 3, 1, 4)
        q, k, v = qkv.unbind(0)
        q = q * (C // self.h) ** -0.5
        q, k, v = self._to_bh(q), self._to_bh(k), self._to_bh(v)
        attn = torch.bmm(q, k.transpose(1, 2)).softmax(-1)
        return torch.bmm(attn, v)


def main():
    FlashStyleAttention(32)(torch.randn(2, 5, 32))
