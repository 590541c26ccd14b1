import math

import torch
from torch import nn


class SinusoidalPositions(nn.Module):
    def __init__(self, dim, max_len=128):
        super().__init__()
        pos = torch.arange(max_len).unsqueeze(1)
        div = torch.exp(torch.arange(0, dim, 2) * (-math.log(10000.0) / dim))
        pe = torch.zeros(max_len, 1, dim)
        pe[:, 0, 0::2] = torch.sin(pos * div)
        pe[:, 0, 1::2] = torch.cos(pos * div)
        self.register_buffer("pe", pe)

    def forward(self, x):
        b, t, d = x.shape
        pos = self.pe[:t].expand(t, b, d).transpose(0, 1)
        return (x.reshape(b * t, d) + pos.view(b * t, d)).view(b, t, d)  # hazard: CTG101


def main():
    pe = SinusoidalPositions(8)
    print(pe(torch.randn(2, 10, 8)).shape)
