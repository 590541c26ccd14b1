import torch
from torch import nn


class ActivationCompressor(nn.Module):
    def __init__(self, channels):
        super().__init__()
        self.conv = nn.Conv2d(3, channels, 3, padding=1)

    def forward(self, img):
        feats = torch.relu(self.conv(img))
        nhwc = feats.permute(0, 2, 3, 1)
        packed = nhwc.to(torch.float16)
        b, h, w, c = packed.shape
        return packed.view(b, h * w * c)  # hazard: CTG101


def main():
    comp = ActivationCompressor(4)
    with torch.no_grad():
        print(comp(torch.randn(2, 3, 6, 6)).shape)
