import torch
from torch import nn


class KVCache(nn.Module):
    def __init__(self, batch, max_len, heads, head_dim):
        super().__init__()
        self.register_buffer("k", torch.zeros(batch, max_len, heads, head_dim), persistent=False)
        self.register_buffer("v", torch.zeros(batch, max_len, heads, head_dim), persistent=False)
        self.pos = 0

    def update(self, k_new, v_new):
        t = k_new.shape[1]
        self.k[:, self.pos:self.pos + t] = k_new
        self.v[:, self.pos:self.pos + t] = v_new
        self.pos += t

    def valid(self):
        return self.k[:, :self.pos], self.v[:, :self.pos]


def paged_layout(cache):
    k, v = cache.valid()
    heads, d = k.shape[-2:]
    return k.view(-1, heads, d), v.view(-1, heads, d)  # hazard: CTG101


def main():
    cache = KVCache(batch=2, max_len=16, heads=2, head_dim=4)
    cache.update(torch.randn(2, 3, 2, 4), torch.randn(2, 3, 2, 4))
    paged_layout(cache)
