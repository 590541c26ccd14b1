"""timm-style patch embedding imported by sibling_returns_tokens_view.py: not a bug script."""
import torch
from torch import nn


class PatchEmbed(nn.Module):
    def __init__(self, channels=3, width=32, patch=4):
        super().__init__()
        self.proj = nn.Conv2d(channels, width, patch, stride=patch)

    def forward(self, images):
        with torch.no_grad():
            return self.proj(images).flatten(2).transpose(1, 2)   # (batch, tokens, width)
