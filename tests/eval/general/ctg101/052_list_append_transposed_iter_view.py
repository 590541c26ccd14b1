import torch
from torch import nn


class MultiScaleConv(nn.Module):
    def __init__(self, channels, scales=(3, 5, 7)):
        super().__init__()
        self.convs = nn.ModuleList(nn.Conv1d(channels, channels, k, padding=k // 2) for k in scales)

    def forward(self, x):
        feats = []
        for conv in self.convs:
            feats.append(conv(x).transpose(1, 2))
        pooled = []
        for f in feats:
            b, t, c = f.shape
            pooled.append(f.view(b * t, c).max(dim=0).values)  # hazard: CTG101
        return torch.stack(pooled)


def main():
    model = MultiScaleConv(6)
    print(model(torch.randn(2, 6, 20)).shape)
