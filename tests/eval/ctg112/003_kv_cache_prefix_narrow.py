"""Prompt cache: persists the filled prefix of a preallocated KV cache."""
import io

import torch


class PromptCache:
    def __init__(self, heads, max_len, dim):
        self.k = torch.zeros(1, heads, max_len, dim)
        self.len = 0

    def fill(self, k):
        n = k.shape[2]
        self.k[:, :, self.len:self.len + n] = k
        self.len += n

    def persist(self, f):
        torch.save({"k": self.k.narrow(2, 0, self.len), "len": self.len}, f)  # hazard: CTG112


def main():
    c = PromptCache(2, 512, 8)
    c.fill(torch.randn(1, 2, 7, 8))
    c.persist(io.BytesIO())


if __name__ == "__main__":
    main()
