"""Relative position bias added in place to a head-broadcast base bias."""
import torch


class RelBias:
    def __init__(self, heads, n):
        self.heads = heads
        self.base = torch.zeros(1, n, n)
        self.rel = torch.randn(heads, n, n)

    def per_head(self):
        return self.base.expand(self.heads, -1, -1)

    def total(self):
        bias = self.per_head()
        bias += self.rel  # hazard: CTG108
        return bias


def main():
    try:
        RelBias(4, 6).total()
    except RuntimeError:
        pass


if __name__ == "__main__":
    main()
