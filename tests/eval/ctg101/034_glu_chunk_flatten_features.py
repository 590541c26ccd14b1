import torch
from torch import nn, Tensor


def split_value_gate(x: Tensor):
    value, gate = x.chunk(2, dim=-1)
    return value, gate


class GatedPooler(nn.Module):
    def __init__(self, d=8, T=5):
        super().__init__()
        self.up = nn.Linear(d, 4 * d)
        self.out = nn.Linear(T * 2 * d, 2)

    def forward(self, x: Tensor) -> Tensor:
        B = x.shape[0]
        value, gate = split_value_gate(self.up(x))
        g = torch.sigmoid(gate.mean(dim=(1, 2), keepdim=True))
        flat = value.view(B, -1)  # hazard: CTG101
        return self.out(flat) * g.view(B, 1)


def main():
    GatedPooler()(torch.randn(2, 5, 8))
