import torch
from torch import nn


class CachedAttention(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.k = nn.Linear(dim, dim)
        self.v = nn.Linear(dim, dim)

    def build_cache(self, memory):
        cache = {}
        cache["k"] = self.k(memory).transpose(1, 2)
        cache["v"] = self.v(memory)
        return cache

    def forward(self, q, cache):
        attn = torch.softmax(q @ cache["k"], dim=-1)
        return attn @ cache["v"]


def cache_bytes(cache):
    b = cache["v"].size(0)
    return cache["v"].view(b, -1).element_size() * cache["k"].numel() * 2


def main():
    layer = CachedAttention(8)
    cache = layer.build_cache(torch.randn(2, 5, 8))
    print(layer(torch.randn(2, 3, 8), cache).shape, cache_bytes(cache))
