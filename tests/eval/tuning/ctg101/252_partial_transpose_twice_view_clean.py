import functools

import torch

swap = functools.partial(torch.transpose, dim0=1, dim1=2)


def roundtrip(x):
    y = swap(swap(x))
    b, t, d = y.shape
    return y.view(b * t, d)


def main():
    print(roundtrip(torch.randn(2, 3, 4)).shape)
