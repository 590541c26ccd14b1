import torch
from torch import nn


class GatedFeedForward(nn.Module):
    def __init__(self, dim, hidden):
        super().__init__()
        self.up = nn.Linear(dim, 2 * hidden)
        self.down = nn.Linear(hidden, dim)

    def forward(self, x):
        b, t, _ = x.shape
        value, gate = self.up(x).chunk(2, dim=-1)
        rows = value.view(b * t, -1)
        gates = gate.reshape(b * t, -1)
        hidden = rows * torch.sigmoid(gates)
        return self.down(hidden).view(b, t, -1)


def main():
    ff = GatedFeedForward(32, 64)
    print(ff(torch.randn(4, 6, 32)).shape)
