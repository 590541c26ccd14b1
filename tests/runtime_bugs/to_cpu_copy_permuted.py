"""Staging permuted conv weights (from an HWIO checkpoint) with .to(device, copy=True), then
flattening each filter with .view(): the copy kept the permuted strides, so the view raises. On
a CPU-only machine the same-device copy is the observable stand-in for .to('cuda') (same
stride-preserving code path)."""
import torch

hwio = torch.randn(3, 3, 8, 16)
staged = hwio.permute(3, 2, 0, 1).to("cpu", copy=True)
filters = staged.view(16, -1)  # bug-line: CTG101, CTG104
