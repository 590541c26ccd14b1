import torch
from torch import nn


class TwoBinPooler(nn.Module):
    def __init__(self, dim, out_dim):
        super().__init__()
        self.pool = nn.AdaptiveAvgPool1d(2)
        self.proj = nn.Linear(2 * dim, out_dim)

    def forward(self, x):
        pooled = self.pool(x).swapaxes(1, 2)
        b = pooled.size(0)
        return self.proj(pooled.view(b, -1))  # hazard: CTG101


def main():
    pooler = TwoBinPooler(32, 8)
    print(pooler(torch.randn(5, 32, 11)).shape)
