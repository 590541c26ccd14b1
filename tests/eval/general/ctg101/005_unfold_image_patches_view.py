import torch
from torch import nn


class PatchEmbed(nn.Module):
    def __init__(self, in_chans=3, patch=4, dim=96):
        super().__init__()
        self.patch = patch
        self.proj = nn.Linear(in_chans * patch * patch, dim)

    def forward(self, img):
        b, c, h, w = img.shape
        patches = img.unfold(2, 4, 4).unfold(3, 4, 4)
        patches = patches.view(b, c, -1, 16)  # hazard: CTG101
        patches = patches.permute(0, 2, 1, 3).reshape(b, -1, c * 16)
        return self.proj(patches)


def main():
    embed = PatchEmbed()
    img = torch.randn(2, 3, 32, 32)
    tokens = embed(img)
    print(tokens.shape)
