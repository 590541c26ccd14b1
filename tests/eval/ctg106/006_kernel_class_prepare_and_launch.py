"""Custom CPU kernel wrapper: one method prepares the layout, another reads the raw pointer."""
import ctypes

import torch


class RowSumKernel:
    def prepare(self, x):
        return x.permute(0, 2, 1)

    def launch(self, x):
        rows, cols = x.shape[-2], x.shape[-1]
        buf = (ctypes.c_float * x.numel()).from_address(x.data_ptr())  # hazard: CTG106
        return [sum(buf[r * cols:(r + 1) * cols]) for r in range(rows)]

    def __call__(self, x):
        return self.launch(self.prepare(x))


def main():
    out = RowSumKernel()(torch.randn(1, 3, 4))
    assert len(out) == 4


if __name__ == "__main__":
    main()
