import torch
from torch import nn


class PooledProjector(nn.Module):
    def __init__(self, dim, out_dim):
        super().__init__()
        self.pool = nn.AdaptiveAvgPool1d(1)
        self.proj = nn.Linear(dim, out_dim)

    def forward(self, x):
        pooled = self.pool(x.transpose(1, 2))
        pooled = pooled.swapaxes(1, 2)
        b = pooled.size(0)
        return self.proj(pooled.view(b, -1))


def main():
    proj = PooledProjector(32, 8)
    print(proj(torch.randn(5, 11, 32)).shape)
