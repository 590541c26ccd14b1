import torch
from torch import nn


class SubPixelUpsample(nn.Module):
    def __init__(self, ch=4, r=2):
        super().__init__()
        self.r = r
        self.conv = nn.Conv2d(ch, ch * r * r, 3, padding=1)

    @staticmethod
    def shuffle(x, r):
        b, c, h, w = x.shape
        oc = c // (r * r)
        x = x.view(b, oc, r, r, h, w)
        x = x.permute(0, 1, 4, 2, 5, 3)
        return x.view(b, oc, h * r, w * r)  # hazard: CTG101

    def forward(self, x):
        return self.shuffle(self.conv(x), self.r)


def main():
    SubPixelUpsample()(torch.randn(2, 4, 5, 5))
