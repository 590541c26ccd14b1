import torch
from torch import nn


class DenseFromTF(nn.Module):
    """TF/Keras Dense kernels are stored (in, out); torch Linear wants (out, in)."""

    def __init__(self, kernel, bias):
        super().__init__()
        self.weight = nn.Parameter(kernel.t())  # hazard: CTG103
        self.bias = nn.Parameter(bias.clone())

    def forward(self, x):
        return nn.functional.linear(x, self.weight, self.bias)


def main():
    kernel = torch.randn(10, 4)
    bias = torch.zeros(4)
    layer = DenseFromTF(kernel, bias)
    print(layer(torch.randn(2, 10)).shape)
