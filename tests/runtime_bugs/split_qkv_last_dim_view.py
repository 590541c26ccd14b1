"""Megatron-style fused QKV: torch.split along the last dim returns strided chunks (a gap of
2 * hidden between rows), and flattening each sample's (seq, hidden) query with .view()
raises (Megatron grew a `contiguous_split_chunks` flag for split chunks)."""
import torch
from torch import nn


def split_along_last_dim(tensor, parts):
    return torch.split(tensor, tensor.size(-1) // parts, dim=-1)


qkv = nn.Linear(16, 48)
query, key, value = split_along_last_dim(qkv(torch.randn(2, 5, 16)), 3)
per_sample = query.view(query.size(0), -1)  # bug-line: CTG101
