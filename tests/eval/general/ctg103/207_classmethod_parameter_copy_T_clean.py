import torch
from torch import nn


class Conv1DLinear(nn.Module):
    """GPT-2 style Conv1D checkpoints keep weight as (in, out)."""

    def __init__(self, in_dim, out_dim):
        super().__init__()
        self.weight = nn.Parameter(torch.empty(out_dim, in_dim))
        self.bias = nn.Parameter(torch.zeros(out_dim))
        nn.init.normal_(self.weight, std=0.02)

    @classmethod
    def from_conv1d_state(cls, state):
        in_dim, out_dim = state["weight"].shape
        layer = cls(in_dim, out_dim)
        with torch.no_grad():
            layer.weight.copy_(state["weight"].T)
            layer.bias.copy_(state["bias"])
        return layer

    def forward(self, x):
        return nn.functional.linear(x, self.weight, self.bias)


def main():
    state = {"weight": torch.randn(8, 12), "bias": torch.zeros(12)}
    layer = Conv1DLinear.from_conv1d_state(state)
    print(layer(torch.randn(2, 8)).shape)
