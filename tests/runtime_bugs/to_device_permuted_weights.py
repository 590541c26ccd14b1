"""Weights converted from a TF (HWIO) checkpoint by permute() and then moved to the device:
.to() keeps the permuted strides, so the device copy is just as non-contiguous, and the
flattening .view() for a fused GEMM raises. Without CUDA, a same-device copy stands in for the
move (the same stride-preserving copy)."""
import torch

device = "cuda" if torch.cuda.is_available() else "cpu"
hwio = torch.randn(3, 3, 16, 32)
oihw = hwio.permute(3, 2, 0, 1)
weights = oihw.to(device, copy=True)
gemm = weights.view(32, -1)  # bug-line: CTG101, CTG104
