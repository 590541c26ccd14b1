"""Pointer to the newest rows of a time-major buffer (leading-dim slice is contiguous)."""
import ctypes

import torch


class History:
    def __init__(self, steps, dim):
        self.buf = torch.arange(steps * dim, dtype=torch.float32).reshape(steps, dim)

    def latest(self, n):
        return self.buf[-n:]

    def latest_ptr(self, n):
        rows = self.latest(n)
        return rows.data_ptr(), rows.numel()


def main():
    h = History(8, 4)
    ptr, n = h.latest_ptr(2)
    vals = list((ctypes.c_float * n).from_address(ptr))
    assert vals[0] == 24.0


if __name__ == "__main__":
    main()
