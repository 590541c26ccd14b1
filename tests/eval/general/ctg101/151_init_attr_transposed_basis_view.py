import torch
from torch import nn


class PCAProjector(nn.Module):
    def __init__(self, components):
        """components: (n_components, dim) unit-norm rows."""
        super().__init__()
        self.basis = components.t()
        self.n_components = components.size(0)

    def forward(self, x):
        return x @ self.basis

    def export(self):
        return {"n": self.n_components, "flat": self.basis.view(-1).tolist()}  # hazard: CTG101


def main():
    components = nn.functional.normalize(torch.randn(3, 6), dim=1)
    proj = PCAProjector(components)
    print(proj(torch.randn(4, 6)).shape, len(proj.export()["flat"]))
