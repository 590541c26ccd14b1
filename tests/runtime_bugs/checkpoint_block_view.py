"""Activation checkpointing around a block whose attention merges heads with .view(): the
error is raised inside torch.utils.checkpoint's call of the user function."""
import torch
from torch import nn
from torch.utils.checkpoint import checkpoint


class Block(nn.Module):
    def __init__(self, width=32, heads=4):
        super().__init__()
        self.heads = heads
        self.qkv = nn.Linear(width, 3 * width)

    def forward(self, x):
        b, n, w = x.shape
        q, k, v = self.qkv(x).view(b, n, 3, self.heads, -1).permute(2, 0, 3, 1, 4)
        context = (q @ k.transpose(-1, -2)).softmax(-1) @ v
        return context.transpose(1, 2).view(b, n, w)  # bug-line: CTG101


block = Block()
x = torch.randn(2, 5, 32, requires_grad=True)
checkpoint(block, x, use_reentrant=False).sum().backward()
