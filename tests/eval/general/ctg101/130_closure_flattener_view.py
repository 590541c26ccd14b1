import torch
from torch import nn


def make_flattener(start_dim):
    def flatten(t):
        lead = t.shape[:start_dim]
        return t.view(*lead, -1)  # hazard: CTG101
    return flatten


class Head(nn.Module):
    def __init__(self, channels, h, w, classes):
        super().__init__()
        self.conv = nn.Conv2d(3, channels, 1)
        self.flatten = make_flattener(1)
        self.fc = nn.Linear(channels * h * w, classes)

    def forward(self, x):
        feats = self.conv(x).transpose(2, 3)
        return self.fc(self.flatten(feats))


def main():
    head = Head(4, 5, 6, 2)
    print(head(torch.randn(2, 3, 5, 6)).shape)
