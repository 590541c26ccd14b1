import torch
from torch import nn


class DiagonalScorer(nn.Module):
    """Scores each token against itself after separate query/key projections."""

    def __init__(self, dim):
        super().__init__()
        self.q = nn.Linear(dim, dim)
        self.k = nn.Linear(dim, dim)
        self.scale = dim ** -0.5

    def forward(self, x):
        scores = self.q(x) @ self.k(x).transpose(-2, -1) * self.scale
        diag = scores.diagonal(dim1=-2, dim2=-1)
        return diag.view(-1)  # hazard: CTG101


def main():
    model = DiagonalScorer(16)
    x = torch.randn(4, 10, 16)
    out = model(x)
    print(out.shape)
