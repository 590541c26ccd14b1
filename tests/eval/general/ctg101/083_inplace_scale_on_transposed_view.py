import torch
from torch import nn


class TemperatureLogits(nn.Module):
    def __init__(self, dim, classes):
        super().__init__()
        self.proj = nn.Linear(dim, classes)
        self.temperature = 2.0

    def forward(self, x):
        logits = self.proj(x).transpose(0, 1)
        logits.div_(self.temperature)
        logits.clamp_(-20.0, 20.0)
        return logits.view(-1)  # hazard: CTG101


def main():
    head = TemperatureLogits(8, 5)
    print(head(torch.randn(6, 8)).shape)
