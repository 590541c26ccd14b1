import torch
from torch import nn


class PatchEmbed(nn.Module):
    def __init__(self, in_ch=3, dim=16, patch=4):
        super().__init__()
        self.proj = nn.Conv2d(in_ch, dim, patch, stride=patch)
        self.tokens = None
        self.grid = None

    def embed(self, img):
        x = self.proj(img)
        self.grid = x.shape[-2:]
        self.tokens = x.flatten(2).transpose(1, 2)
        return self.tokens

    def to_map(self):
        B, N, C = self.tokens.shape
        h, w = self.grid
        return self.tokens.view(B, h, w, C)


def main():
    pe = PatchEmbed()
    pe.embed(torch.randn(2, 3, 16, 16))
    fmap = pe.to_map()
    assert fmap.shape == (2, 4, 4, 16)
