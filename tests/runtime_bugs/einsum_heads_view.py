"""Attention written with einsum producing (batch, query, heads, dim) directly: einsum returns
a permuted view of its bmm result, so merging heads with .view() raises."""
import torch

q = k = v = torch.randn(2, 4, 5, 8)                        # (batch, heads, tokens, dim)
weights = torch.einsum("bhqd,bhkd->bhqk", q, k).softmax(-1)
context = torch.einsum("bhqk,bhkd->bqhd", weights, v)
merged = context.view(2, 5, -1)  # bug-line: CTG101
