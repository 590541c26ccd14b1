import torch
from torch import nn, Tensor


def ensure_contiguous(x: Tensor) -> Tensor:
    if not x.is_contiguous():
        x = x.contiguous()
    return x


class Flattener(nn.Module):
    def forward(self, x: Tensor) -> Tensor:
        x = ensure_contiguous(x)
        return x.view(x.size(0), -1)


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.flat = Flattener()

    def forward(self, x):
        y = x.permute(0, 2, 3, 1)
        y = torch.relu(y)
        return self.flat(y)


def main():
    Model()(torch.randn(2, 3, 4, 4))
