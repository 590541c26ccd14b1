import torch
from torch import nn


class CachedAttention(nn.Module):
    def __init__(self, dim=8):
        super().__init__()
        self.qkv = nn.Linear(dim, 3 * dim)
        self.k_cache = None

    def forward(self, x):
        q, k, v = self.qkv(x).chunk(3, dim=-1)
        self.k_cache = k
        return torch.softmax(q @ k.transpose(-1, -2), dim=-1) @ v

    def serialize_cache(self):
        B = self.k_cache.shape[0]
        return self.k_cache.view(B, -1)  # hazard: CTG101


def main():
    m = CachedAttention()
    m(torch.randn(2, 5, 8))
    m.serialize_cache()
