"""Weights converted from a TF (HWIO) checkpoint by permute() and then moved to the device:
.to() keeps the permuted strides, so the device copy is just as non-contiguous."""
import torch

device = "cuda" if torch.cuda.is_available() else "meta"
hwio = torch.randn(3, 3, 16, 32)
oihw = hwio.permute(3, 2, 0, 1)
weights = oihw.to(device)  # bug-line: CTG104
