import torch
from torch import nn


class CumulativeHead(nn.Module):
    def __init__(self, dim, classes):
        super().__init__()
        self.proj = nn.Linear(dim, classes)

    def forward(self, x):
        logits = self.proj(x).transpose(0, 1)
        running = torch.cumsum(logits, dim=1, dtype=torch.float64)
        return running.view(-1)


def main():
    head = CumulativeHead(8, 4)
    print(head(torch.randn(5, 8)).shape)
