import torch
from torch import nn


class ComplexProjector(nn.Module):
    def __init__(self, in_dim):
        super().__init__()
        w = torch.randn(in_dim, 1, dtype=torch.complex64) / in_dim ** 0.5
        self.weight = nn.Parameter(w)

    def forward(self, z):
        return z @ self.weight

    @torch.no_grad()
    def export_adjoint(self):
        adj = self.weight.adjoint().resolve_conj()
        return adj.view(-1)


def main():
    layer = ComplexProjector(4)
    z = torch.randn(2, 4, dtype=torch.complex64)
    print(layer(z).shape, layer.export_adjoint().shape)
