import torch
from torch import nn


class PositionalConvStem(nn.Module):
    def __init__(self, in_ch, dim, seq_len):
        super().__init__()
        self.conv = nn.Conv1d(in_ch, dim, 3, padding=1)
        self.pos = nn.Parameter(torch.randn(1, seq_len, dim) * 0.02)

    def forward(self, x):
        feats = self.conv(x).transpose(1, 2)
        b, t, d = feats.shape
        tokens = self.pos.expand(b, -1, -1) + feats
        return tokens.view(b * t, d)


def main():
    stem = PositionalConvStem(3, 8, 16)
    print(stem(torch.randn(4, 3, 16)).shape)
