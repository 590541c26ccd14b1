"""Small real models for the runtime tests: a torchvision-style CNN and a multi-head attention
block, each with an optional planted layout hazard. Lines a test must find carry a marker."""
from __future__ import annotations

import torch
from torch import nn


class BasicBlock(nn.Module):
    def __init__(self, channels: int) -> None:
        super().__init__()
        self.conv1 = nn.Conv2d(channels, channels, 3, padding=1, bias=False)
        self.bn1 = nn.BatchNorm2d(channels)
        self.conv2 = nn.Conv2d(channels, channels, 3, padding=1, bias=False)
        self.bn2 = nn.BatchNorm2d(channels)
        self.relu = nn.ReLU(inplace=True)

    def forward(self, x):
        out = self.relu(self.bn1(self.conv1(x)))
        out = self.bn2(self.conv2(out))
        return self.relu(out + x)


class SmallCNN(nn.Module):
    """ResNet-like: stem, two basic blocks, pooled head. `planted` flattens the feature map in
    NHWC order through a permute, which makes reshape copy every step (CTG201)."""

    def __init__(self, planted: bool = False, classes: int = 10) -> None:
        super().__init__()
        self.planted = planted
        self.stem = nn.Sequential(nn.Conv2d(3, 16, 3, padding=1, bias=False),
                                  nn.BatchNorm2d(16), nn.ReLU(inplace=True))
        self.layer1 = nn.Sequential(BasicBlock(16), BasicBlock(16))
        self.pool = nn.AdaptiveAvgPool2d((2, 2))
        self.fc = nn.Linear(16 * 4, classes)

    def forward(self, x):
        x = self.pool(self.layer1(self.stem(x)))
        if self.planted:
            x = x.permute(0, 2, 3, 1).reshape(x.shape[0], -1)  # planted: cnn
        else:
            x = torch.flatten(x, 1)
        return self.fc(x)


def split_heads(x, heads):
    batch, tokens, width = x.shape
    return x.view(batch, tokens, heads, width // heads).transpose(1, 2)


def merge_heads(x):
    batch, tokens, heads, dim = x.shape
    return x.view(batch, tokens, heads * dim)  # planted: mha view


class MultiHeadAttention(nn.Module):
    """Textbook MHA. `planted` forgets the .contiguous() before merging heads, so the helper's
    view receives a transposed tensor and raises (CTG101)."""

    def __init__(self, width: int = 32, heads: int = 4, planted: bool = False) -> None:
        super().__init__()
        self.heads, self.planted = heads, planted
        self.qkv = nn.Linear(width, 3 * width)
        self.out = nn.Linear(width, width)
        self.norm = nn.LayerNorm(width)

    def forward(self, x):
        q, k, v = self.qkv(self.norm(x)).chunk(3, dim=-1)
        q, k, v = (split_heads(t, self.heads) for t in (q, k, v))
        scores = (q @ k.transpose(-2, -1)) / (q.shape[-1] ** 0.5)
        context = scores.softmax(-1) @ v
        if self.planted:
            merged = merge_heads(context.transpose(1, 2))  # planted: mha transpose
        else:
            merged = merge_heads(context.transpose(1, 2).contiguous())
        return x + self.out(merged)


def marker_line(path: str, marker: str) -> int:
    with open(path) as stream:
        lines = [n for n, text in enumerate(stream, 1) if f"# planted: {marker}" in text]
    assert len(lines) == 1, (marker, lines)
    return lines[0]
