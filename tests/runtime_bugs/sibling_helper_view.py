"""HF-style attention split across modules: the model transposes the attention context and a
helper in a sibling module merges the heads with .view(). The crash is in the helper
(_attention_utils.py), the layout comes from this file."""
import torch

from _attention_utils import merge_heads

query = key = value = torch.randn(2, 4, 8, 16)         # (batch, heads, tokens, dim)
probs = (query @ key.transpose(-1, -2)).softmax(-1)
context = (probs @ value).transpose(1, 2)              # (batch, tokens, heads, dim)
merged = merge_heads(context)
