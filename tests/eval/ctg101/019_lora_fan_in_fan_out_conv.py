import torch
from torch import nn


def transpose(weight, fan_in_fan_out):
    return weight.T if fan_in_fan_out else weight


class LoraConv(nn.Module):
    def __init__(self, conv: nn.Conv2d, r=2, fan_in_fan_out=True):
        super().__init__()
        self.conv = conv
        self.fan_in_fan_out = fan_in_fan_out
        k = conv.kernel_size[0] * conv.kernel_size[1] * conv.in_channels
        self.lora_A = nn.Parameter(torch.randn(r, k) * 0.01)
        self.lora_B = nn.Parameter(torch.randn(conv.out_channels, r) * 0.01)
        self.scaling = 0.5

    def get_delta_weight(self):
        delta = transpose(self.lora_B @ self.lora_A, self.fan_in_fan_out) * self.scaling
        return delta.view(self.conv.weight.shape)  # hazard: CTG101

    def merge(self):
        with torch.no_grad():
            self.conv.weight += self.get_delta_weight()


def main():
    LoraConv(nn.Conv2d(3, 8, 3)).merge()
