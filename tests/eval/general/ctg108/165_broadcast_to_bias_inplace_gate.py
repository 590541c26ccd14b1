import torch
from torch import nn


class GatedBias(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.bias = nn.Parameter(torch.zeros(dim))
        self.gate = nn.Linear(dim, dim)

    def forward(self, x):
        with torch.no_grad():
            g = torch.sigmoid(self.gate(x))
            bias = torch.broadcast_to(self.bias.detach(), x.shape)
            bias.mul_(g)  # hazard: CTG108
        return x + bias


def main():
    layer = GatedBias(8)
    print(layer(torch.randn(4, 8)).shape)
