"""Writes into one row picked out of the expanded prompt (that row itself does not overlap)."""
import torch


class Prefix:
    def __init__(self, n, dim):
        self.prompt = torch.randn(n, dim)

    def batch(self, b):
        return self.prompt.unsqueeze(0).expand(b, -1, -1)


def reset_first_sample(prefix, b):
    p = prefix.batch(b)
    p[0].zero_()
    return prefix.prompt


def main():
    out = reset_first_sample(Prefix(3, 4), 2)
    assert out.abs().sum() == 0


if __name__ == "__main__":
    main()
