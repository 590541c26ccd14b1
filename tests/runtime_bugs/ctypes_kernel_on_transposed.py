"""A 'custom kernel' reads numel floats from data_ptr(): right for a contiguous tensor, wrong
element order for a transposed one (the weight was stored as W.t() for a matmul)."""
import ctypes

import torch


def naive_sum_of_first_row(t):
    ptr = t.data_ptr()  # bug-line: CTG106
    values = (ctypes.c_float * t.numel()).from_address(ptr)
    return sum(values[: t.shape[1]])


weight = torch.arange(6.).reshape(2, 3).t()
print(naive_sum_of_first_row(weight), weight[0].sum().item())
