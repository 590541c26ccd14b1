"""A pooling head flattens the output of nn.MultiheadAttention(batch_first=True) with .view():
the output is transposed back from the sequence-first computation and is not contiguous."""
import torch
from torch import nn

attention = nn.MultiheadAttention(32, 4, batch_first=True)
tokens = torch.randn(2, 6, 32)
attended, _ = attention(tokens, tokens, tokens)
pooled_in = attended.view(2, -1)  # bug-line: CTG101
