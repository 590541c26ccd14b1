import torch
from torch import nn


class RandomProjection(nn.Module):
    def __init__(self, in_dim, out_dim, seed=0):
        super().__init__()
        g = torch.Generator().manual_seed(seed)
        basis = torch.randn(out_dim, in_dim, generator=g) / out_dim ** 0.5
        self.register_buffer("proj", basis.t())  # hazard: CTG103

    def forward(self, x):
        return x @ self.proj


def main():
    rp = RandomProjection(16, 4)
    print(rp(torch.randn(3, 16)).shape, rp.proj.shape)
