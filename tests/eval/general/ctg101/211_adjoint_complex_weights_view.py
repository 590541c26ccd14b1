import torch
from torch import nn


class ComplexLinear(nn.Module):
    def __init__(self, in_dim, out_dim):
        super().__init__()
        w = torch.randn(out_dim, in_dim, dtype=torch.complex64) / in_dim ** 0.5
        self.weight = nn.Parameter(w)

    def forward(self, z):
        return z @ self.weight.adjoint()

    @torch.no_grad()
    def export_adjoint(self):
        adj = self.weight.adjoint().resolve_conj()
        return adj.view(-1)  # hazard: CTG101


def main():
    layer = ComplexLinear(4, 3)
    z = torch.randn(2, 4, dtype=torch.complex64)
    print(layer(z).shape, layer.export_adjoint().shape)
