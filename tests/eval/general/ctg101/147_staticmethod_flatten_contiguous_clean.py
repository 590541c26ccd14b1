import torch
from torch import nn


class SegHead(nn.Module):
    def __init__(self, channels, classes):
        super().__init__()
        self.cls = nn.Conv2d(channels, classes, 1)

    @staticmethod
    def _pixels(x):
        b, h, w, c = x.shape
        return x.view(b * h * w, c)

    def forward(self, feats, target):
        logits = self.cls(feats).permute(0, 2, 3, 1).contiguous()
        return nn.functional.cross_entropy(self._pixels(logits), target.view(-1))


def main():
    head = SegHead(8, 3)
    feats = torch.randn(2, 8, 4, 4)
    target = torch.randint(0, 3, (2, 4, 4))
    print(head(feats, target))
