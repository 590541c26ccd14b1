import torch
from torch import nn


class KVCache(nn.Module):
    def __init__(self, batch, max_len, heads, head_dim):
        super().__init__()
        self.register_buffer("k", torch.zeros(batch, max_len, heads, head_dim), persistent=False)
        self.pos = 0

    def update(self, k_new):
        t = k_new.shape[1]
        self.k[:, self.pos:self.pos + t] = k_new
        self.pos += t

    def valid(self):
        return self.k[:, :self.pos]


def paged_layout(cache):
    k = cache.valid()
    heads, d = k.shape[-2:]
    return k.view(-1, heads, d)


def main():
    cache = KVCache(batch=1, max_len=16, heads=2, head_dim=4)
    for _ in range(3):
        cache.update(torch.randn(1, 1, 2, 4))
    assert paged_layout(cache).shape == (3, 2, 4)
