import torch
from torch import nn


class Gate(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.bias = nn.Parameter(torch.zeros(dim))
        self.act = nn.LeakyReLU(0.1, inplace=True)

    def forward(self, x):
        with torch.no_grad():
            g = self.bias.expand(x.size(0), -1)
            g = self.act(g)  # hazard: CTG108
        return x * g


def main():
    print(Gate(4)(torch.randn(3, 4)).shape)
