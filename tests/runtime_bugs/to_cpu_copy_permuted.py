"""Staging permuted conv weights (from an HWIO checkpoint) with .to(device, copy=True): the copy
keeps the permuted strides. On a CPU-only machine the same-device copy is the observable
stand-in for .to('cuda') (same stride-preserving code path)."""
import torch

hwio = torch.randn(3, 3, 8, 16)
staged = hwio.permute(3, 2, 0, 1).to("cpu", copy=True)  # bug-line: CTG104
