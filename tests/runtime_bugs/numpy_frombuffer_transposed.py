"""Exporting a tensor's bytes for a C library through numpy: np.frombuffer needs a C-contiguous
buffer, and .numpy() of a transposed tensor shares its transposed strides, so it raises."""
import numpy as np
import torch


def export_bytes(tensor):
    return np.frombuffer(tensor.numpy(), dtype=np.float32)  # bug-line: CTG106


weights = torch.randn(6, 4)
exported = export_bytes(weights.t())
