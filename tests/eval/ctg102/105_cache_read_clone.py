"""Preallocated KV cache whose reader returns a copy of the filled prefix."""
import torch


class StaticKVCache:
    def __init__(self, batch, heads, max_len, head_dim):
        self.k = torch.zeros(batch, heads, max_len, head_dim)
        self.pos = 0

    def append(self, k):
        n = k.shape[2]
        self.k[:, :, self.pos:self.pos + n] = k
        self.pos += n

    def keys(self):
        return self.k[:, :, :self.pos].clone()


def main():
    cache = StaticKVCache(1, 2, 16, 8)
    cache.append(torch.randn(1, 2, 3, 8))
    k = cache.keys()
    assert k.shape == (1, 2, 3, 8) and k.is_contiguous()


if __name__ == "__main__":
    main()
