import torch
from torch import nn


class DualPathFusion(nn.Module):
    def __init__(self, channels):
        super().__init__()
        self.a = nn.Conv1d(channels, channels, 3, padding=1)
        self.b = nn.Conv1d(channels, channels, 1)
        self.norm = nn.LayerNorm(channels)

    def forward(self, x):
        bsz, c, t = x.shape
        pa = self.a(x).transpose(1, 2)
        pb = self.b(x).transpose(1, 2)
        fused = (pa + pb).transpose(1, 2)
        planes = fused.view(bsz * c, t)
        return self.norm(planes.view(bsz, c, t).transpose(1, 2))


def main():
    fusion = DualPathFusion(6)
    print(fusion(torch.randn(3, 6, 11)).shape)
