"""Reinterpreting every other column's bits with .view(dtype): a different element size needs
stride(-1) == 1, which a stepped slice does not have."""
import torch

packed = torch.arange(16, dtype=torch.int32).reshape(4, 4)
even = packed[:, ::2]
as_bytes = even.view(torch.uint8)  # bug-line: CTG101
