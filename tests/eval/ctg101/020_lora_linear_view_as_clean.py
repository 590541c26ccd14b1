import torch
from torch import nn


def transpose(weight, fan_in_fan_out):
    return weight.T if fan_in_fan_out else weight


class Conv1D(nn.Module):
    """GPT-2 style: weight stored (in, out)."""

    def __init__(self, nx, nf):
        super().__init__()
        self.weight = nn.Parameter(torch.randn(nx, nf) * 0.02)

    def forward(self, x):
        return x @ self.weight


class LoraConv1D(nn.Module):
    def __init__(self, base: Conv1D, r=2):
        super().__init__()
        self.base = base
        nx, nf = base.weight.shape
        self.lora_A = nn.Parameter(torch.randn(r, nx) * 0.01)
        self.lora_B = nn.Parameter(torch.randn(nf, r) * 0.01)

    def delta(self):
        d = transpose(self.lora_B @ self.lora_A, True)
        return d.view_as(self.base.weight)

    def merge(self):
        with torch.no_grad():
            self.base.weight += self.delta()


def main():
    LoraConv1D(Conv1D(6, 10)).merge()
