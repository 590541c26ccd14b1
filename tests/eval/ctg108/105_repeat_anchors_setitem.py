"""Anchor generator that repeats (copies) the base anchor before writing centres."""
import torch


class Anchors:
    def __init__(self, n):
        self.base = torch.tensor([0.0, 0.0, 16.0, 16.0])
        self.n = n
        self.anchors = None

    def build(self):
        self.anchors = self.base.repeat(self.n, 1)

    def place(self, centres):
        self.anchors[:, :2] = centres
        return self.anchors


def main():
    a = Anchors(6)
    a.build()
    assert a.place(torch.randn(6, 2)).shape == (6, 4)


if __name__ == "__main__":
    main()
