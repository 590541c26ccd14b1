"""A hot loop flattens a transposed activation every step: each flatten is a full copy."""
import torch

hidden = torch.randn(32, 64, 128)
for _ in range(5):
    tokens = hidden.transpose(1, 2).flatten(1)  # bug-line: CTG201
