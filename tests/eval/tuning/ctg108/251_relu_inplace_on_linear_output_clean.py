import torch
from torch import nn


class MLP(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.fc = nn.Linear(dim, dim)
        self.act = nn.ReLU(inplace=True)

    def forward(self, x):
        h = self.fc(x)
        h = self.act(h)
        return h


def main():
    print(MLP(4)(torch.randn(3, 4)).shape)
