"""Detector head traced with a center-cropped feature map as the example."""
import torch
import torch.nn as nn


class BoxHead(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(8, 4, 1)

    def forward(self, feat):
        return self.conv(feat).flatten(2)


def center_crop(feat, size):
    h, w = feat.shape[-2:]
    top, left = (h - size) // 2, (w - size) // 2
    return feat[:, :, top:top + size, left:left + size]


def main():
    head = BoxHead().eval()
    ex = center_crop(torch.randn(1, 8, 12, 12), 8)
    traced = torch.jit.trace(head, (ex,))  # hazard: CTG105
    assert traced(torch.randn(1, 8, 8, 8)).shape == (1, 4, 64)


if __name__ == "__main__":
    main()
