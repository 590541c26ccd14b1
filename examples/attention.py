"""A multi-head self-attention block with a classic layout bug.

After `attn @ v` the heads are merged back with `.transpose(1, 2).view(B, N, C)`. The transpose
makes the tensor non-contiguous, and `.view` cannot merge the head and channel dims that are no
longer adjacent in memory, so the forward pass raises:

    RuntimeError: view size is not compatible with input tensor's size and stride (at least
    one dimension spans across two contiguous subspaces). Use .reshape(...) instead.

Run `contiglint examples/attention.py` to see the finding, `--diff` to see the fix.
"""
import torch
from torch import nn


class MultiHeadSelfAttention(nn.Module):
    def __init__(self, dim: int, num_heads: int = 8, dropout: float = 0.0) -> None:
        super().__init__()
        assert dim % num_heads == 0, "dim must be divisible by num_heads"
        self.num_heads = num_heads
        self.head_dim = dim // num_heads
        self.scale = self.head_dim ** -0.5
        self.qkv = nn.Linear(dim, dim * 3)
        self.proj = nn.Linear(dim, dim)
        self.dropout = nn.Dropout(dropout)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        B, N, C = x.shape
        qkv = self.qkv(x).reshape(B, N, 3, self.num_heads, self.head_dim)
        q, k, v = qkv.permute(2, 0, 3, 1, 4).unbind(0)  # each (B, heads, N, head_dim)

        attn = (q @ k.transpose(-2, -1)) * self.scale
        attn = self.dropout(attn.softmax(dim=-1))

        out = attn @ v  # (B, heads, N, head_dim)
        out = out.transpose(1, 2).view(B, N, C)  # bug: merges heads and head_dim
        return self.proj(out)


if __name__ == "__main__":
    block = MultiHeadSelfAttention(dim=64, num_heads=8)
    print(block(torch.randn(2, 16, 64)).shape)
