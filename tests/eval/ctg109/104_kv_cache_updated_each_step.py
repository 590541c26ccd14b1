"""Decoding loop: the KV cache is written in place each step, so every copy differs."""
import torch


class Cache:
    def __init__(self, b, t, d):
        self.k = torch.zeros(t, b, d)

    def write(self, pos, k):
        self.k[pos] = k


def decode(steps, b=2, d=8):
    cache = Cache(b, steps, d)
    q = torch.randn(b, 1, d)
    for pos in range(steps):
        cache.write(pos, torch.randn(b, d))
        keys = cache.k.transpose(0, 1).contiguous()
        q = (q @ keys.transpose(1, 2)).softmax(-1) @ keys
    return q


def main():
    assert decode(4).shape == (2, 1, 8)


if __name__ == "__main__":
    main()
