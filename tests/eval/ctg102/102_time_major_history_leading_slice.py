"""Time-major (T, B, D) cache: trimming the leading dim keeps a contiguous block."""
import torch


class TimeMajorCache:
    def __init__(self, window):
        self.window = window
        self.mem = None

    def push(self, step):
        step = step.unsqueeze(0)
        self.mem = step if self.mem is None else torch.cat([self.mem, step], dim=0)
        self.mem = self.mem[-self.window:]


def main():
    cache = TimeMajorCache(4)
    for _ in range(6):
        cache.push(torch.randn(2, 8))
    assert cache.mem.shape == (4, 2, 8)


if __name__ == "__main__":
    main()
