"""Hand-written attention kernel reads the transposed keys through ctypes."""
import ctypes

import torch


def host_kernel_sum(ptr, n):
    buf = (ctypes.c_float * n).from_address(ptr)
    return sum(buf)


def key_checksum(key):
    k = key.transpose(-2, -1)
    buf = (ctypes.c_float * k.numel()).from_address(k.data_ptr())  # hazard: CTG106
    return list(buf)[:4]


def main():
    vals = key_checksum(torch.randn(2, 6, 8))
    assert len(vals) == 4


if __name__ == "__main__":
    main()
