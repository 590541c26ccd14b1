"""Segmentation decoder: upsampled channels_last logits forced back to NCHW."""
import torch
import torch.nn as nn
import torch.nn.functional as F


class Decoder(nn.Module):
    def __init__(self, c, classes):
        super().__init__()
        self.cls = nn.Conv2d(c, classes, 1)

    def forward(self, feat, size):
        logits = self.cls(feat)
        up = F.interpolate(logits, size=size, mode="bilinear", align_corners=False)
        return up.contiguous()  # hazard: CTG110


def main():
    dec = Decoder(8, 3)
    feat = torch.randn(1, 8, 4, 4).contiguous(memory_format=torch.channels_last)
    with torch.no_grad():
        assert dec(feat, (16, 16)).shape == (1, 3, 16, 16)


if __name__ == "__main__":
    main()
