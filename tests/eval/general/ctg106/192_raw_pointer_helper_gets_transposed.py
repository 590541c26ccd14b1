import ctypes

import torch


def raw_floats(t):
    n = t.numel()
    arr = (ctypes.c_float * n).from_address(t.data_ptr())  # hazard: CTG106
    return list(arr)


def gram_export(x):
    """Exports x^T for a column-major BLAS consumer."""
    xt = x.t()
    return raw_floats(xt), tuple(xt.shape)


def main():
    x = torch.randn(3, 4)
    vals, shape = gram_export(x)
    print(shape, len(vals))
