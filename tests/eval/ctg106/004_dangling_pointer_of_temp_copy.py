"""Kernel launcher takes the pointer of a temporary contiguous copy."""
import ctypes

import torch


def heads_first(x):
    return x.transpose(1, 2)


def launch(x):
    ptr = heads_first(x).contiguous().data_ptr()  # hazard: CTG106
    n = x.numel()
    return ptr != 0 and n > 0


def main():
    assert launch(torch.randn(2, 5, 4, 8))


if __name__ == "__main__":
    main()
