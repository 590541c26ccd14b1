import torch
from torch import nn
import torch.nn.functional as F


class Upsampler(nn.Module):
    def __init__(self, ch=4, r=2):
        super().__init__()
        self.conv = nn.Conv2d(ch, ch * r * r, 3, padding=1)
        self.r = r

    def forward(self, x):
        return F.pixel_shuffle(self.conv(x), self.r)


def tokens(fmap):
    b, c = fmap.shape[:2]
    return fmap.view(b, c, -1)


def main():
    y = tokens(Upsampler()(torch.randn(2, 4, 5, 5)))
    assert y.shape == (2, 4, 100)
