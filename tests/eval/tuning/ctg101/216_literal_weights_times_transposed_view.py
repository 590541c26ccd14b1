import torch
from torch import nn


class WeightedFrames(nn.Module):
    def __init__(self, in_ch, dim):
        super().__init__()
        self.conv = nn.Conv1d(in_ch, dim, 3, padding=1)

    def forward(self, x):
        feats = self.conv(x).transpose(1, 2)
        b, t, d = feats.shape
        weights = torch.tensor([[[0.5]], [[2.0]]])
        weighted = weights * feats
        return weighted.view(b * t, d)  # hazard: CTG101


def main():
    print(WeightedFrames(3, 6)(torch.randn(2, 3, 9)).shape)
