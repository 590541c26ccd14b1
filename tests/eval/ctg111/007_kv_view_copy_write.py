"""KV cache update through a contiguous copy of the heads-first view."""
import torch


class KVCache:
    def __init__(self, b, t, h, d):
        self.k = torch.zeros(b, t, h, d)

    def heads_first(self):
        return self.k.transpose(1, 2)


def write_keys(cache, new_k):
    cache.heads_first().contiguous().copy_(new_k)  # hazard: CTG111


def main():
    c = KVCache(1, 5, 2, 4)
    write_keys(c, torch.randn(1, 2, 5, 4))


if __name__ == "__main__":
    main()
