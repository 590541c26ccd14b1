"""Kernel wrapper whose prepare step returns a row-major copy."""
import ctypes

import torch


class RowSumKernel:
    def prepare(self, x):
        return x.permute(0, 2, 1).contiguous()

    def launch(self, x):
        rows, cols = x.shape[-2], x.shape[-1]
        buf = (ctypes.c_float * x.numel()).from_address(x.data_ptr())
        return [sum(buf[r * cols:(r + 1) * cols]) for r in range(rows)]

    def __call__(self, x):
        return self.launch(self.prepare(x))


def main():
    x = torch.randn(1, 3, 4)
    out = RowSumKernel()(x)
    assert abs(out[0] - x[0, :, 0].sum().item()) < 1e-5


if __name__ == "__main__":
    main()
