import torch
from torch import nn


class GlobalTokenStem(nn.Module):
    def __init__(self, in_ch, dim):
        super().__init__()
        self.conv = nn.Conv1d(in_ch, dim, 3, padding=1)
        self.global_token = nn.Parameter(torch.randn(1, 1, dim) * 0.02)

    def forward(self, x):
        feats = self.conv(x).transpose(1, 2)
        b, t, d = feats.shape
        ctx = self.global_token.expand(b, t, d) + feats
        return ctx.view(b * t, d)  # hazard: CTG101


def main():
    stem = GlobalTokenStem(3, 8)
    print(stem(torch.randn(4, 3, 16)).shape)
