"""A helper merges attention heads with .view(); its caller hands it a transposed tensor.
The crash is in the helper; the cause (the transpose) is in the caller."""
import torch


def merge_heads(t, batch, tokens):
    return t.view(batch, tokens, -1)  # bug-line: CTG101


def attention_output(scores, values):
    out = scores.softmax(-1) @ values            # (batch, heads, tokens, dim)
    return merge_heads(out.transpose(1, 2), out.shape[0], out.shape[2])


attention_output(torch.randn(2, 4, 8, 8), torch.randn(2, 4, 8, 16))
