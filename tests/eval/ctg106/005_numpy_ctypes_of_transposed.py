"""Passing a weight matrix to a C routine via numpy's ctypes pointer."""
import ctypes

import torch
import torch.nn as nn


def c_pointer(weight_t):
    return weight_t.numpy().ctypes.data_as(ctypes.POINTER(ctypes.c_float))  # hazard: CTG106


def export_weights(layer):
    wt = layer.weight.detach().t()
    p = c_pointer(wt)
    return p[0]


def main():
    export_weights(nn.Linear(4, 3))


if __name__ == "__main__":
    main()
