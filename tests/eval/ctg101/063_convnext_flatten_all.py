import torch
from torch import nn


class LayerNorm2d(nn.LayerNorm):
    def forward(self, x):
        x = x.permute(0, 2, 3, 1)
        x = super().forward(x)
        return x.permute(0, 3, 1, 2)


class StemHead(nn.Module):
    def __init__(self, ch=8):
        super().__init__()
        self.conv = nn.Conv2d(3, ch, 2, stride=2)
        self.norm = LayerNorm2d(ch)
        self.fc = nn.Linear(ch * 16, 2)

    def forward(self, x):
        y = self.norm(self.conv(x))
        return self.fc(y.view(y.size(0), -1))  # hazard: CTG101


def main():
    StemHead()(torch.randn(2, 3, 8, 8))
