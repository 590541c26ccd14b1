import torch
from torch import nn


class ResidualScale(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.alpha = nn.Parameter(torch.full((dim,), 0.5))

    @torch.no_grad()
    def forward(self, x, residual):
        out = x.expand_as(residual)
        out.mul_(self.alpha)
        out.add_(residual)
        return out


def main():
    layer = ResidualScale(8)
    x = torch.randn(3, 8)
    print(layer(x, torch.randn(3, 8)).shape)
