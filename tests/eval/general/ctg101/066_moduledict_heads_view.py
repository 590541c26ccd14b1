import torch
from torch import nn


class Permute(nn.Module):
    def __init__(self, *order):
        super().__init__()
        self.order = order

    def forward(self, x):
        return x.permute(*self.order)


class MultiTaskHead(nn.Module):
    def __init__(self, channels, classes):
        super().__init__()
        self.heads = nn.ModuleDict({
            "cls": nn.Sequential(nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(channels, classes)),
            "seg": nn.Sequential(nn.Conv2d(channels, classes, 1), Permute(0, 2, 3, 1)),
        })

    def forward(self, feats):
        outs = {}
        for name, head in self.heads.items():
            outs[name] = head(feats)
        b = feats.size(0)
        seg = outs["seg"].view(b, -1)  # hazard: CTG101
        return outs["cls"], seg


def main():
    head = MultiTaskHead(8, 5)
    cls, seg = head(torch.randn(2, 8, 4, 4))
    print(cls.shape, seg.shape)
