import torch
from torch import nn


class FPNHead(nn.Module):
    def __init__(self, channels, anchors, classes):
        super().__init__()
        self.cls = nn.Conv2d(channels, anchors * classes, 3, padding=1)
        self.classes = classes

    def forward(self, pyramid):
        logits = [self.cls(p).permute(0, 2, 3, 1) for p in pyramid]
        flat = []
        for level in logits:
            b = level.size(0)
            flat.append(level.view(b, -1))  # hazard: CTG101
        return torch.cat(flat, dim=1).view(pyramid[0].size(0), -1, self.classes)


def main():
    head = FPNHead(8, 3, 4)
    pyramid = [torch.randn(2, 8, s, s) for s in (16, 8, 4)]
    print(head(pyramid).shape)
