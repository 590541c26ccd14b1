import torch
from torch import nn, Tensor


def split_value_gate(x: Tensor):
    value, gate = x.chunk(2, dim=-1)
    return value, gate


class GatedFFN(nn.Module):
    def __init__(self, d=8):
        super().__init__()
        self.up = nn.Linear(d, 4 * d)
        self.down = nn.Linear(2 * d, d)

    def forward(self, x: Tensor) -> Tensor:
        B, T, _ = x.shape
        value, gate = split_value_gate(self.up(x))
        tokens = value.view(B * T, -1)
        gate = torch.sigmoid(gate).view(B * T, -1)
        return self.down(tokens * gate).view(B, T, -1)


def main():
    GatedFFN()(torch.randn(2, 5, 8))
