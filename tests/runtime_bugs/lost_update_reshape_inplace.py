"""Scaling a transposed tensor through a flattened alias: reshape() must copy a transposed
tensor, so mul_ scales the copy and the original is unchanged."""
import torch

features = torch.randn(8, 4).t()
features.reshape(-1).mul_(0.5)  # bug-line: CTG201, CTG111
