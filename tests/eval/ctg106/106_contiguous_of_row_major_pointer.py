"""`.contiguous().data_ptr()` on a tensor that is already row-major (returns itself)."""
import ctypes

import torch


def launch(x):
    ptr = x.contiguous().data_ptr()
    return ctypes.c_float.from_address(ptr).value


def main():
    x = torch.ones(4, 8)
    assert launch(x) == 1.0


if __name__ == "__main__":
    main()
