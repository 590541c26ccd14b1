import torch
from torch import nn


class BaseFrontend(nn.Module):
    def __init__(self, dim, seq_len, classes):
        super().__init__()
        self.fc = nn.Linear(dim * seq_len, classes)

    def prepare(self, x):
        return x

    def forward(self, x):
        x = self.prepare(x)
        return self.fc(x.view(x.size(0), -1))  # hazard: CTG101


class ChannelFirstFrontend(BaseFrontend):
    def prepare(self, x):
        return x.transpose(1, 2)


def main():
    model = ChannelFirstFrontend(dim=4, seq_len=6, classes=3)
    print(model(torch.randn(2, 4, 6)).shape)
