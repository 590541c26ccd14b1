import torch
import torch.nn.functional as F
from torch import nn


class ConvToSeq(nn.Module):
    def __init__(self, ch=8, length=6, p=0.1):
        super().__init__()
        self.p = p
        self.conv = nn.Conv1d(4, ch, 3, padding=1)
        self.head = nn.Linear(ch * length, 3)

    def project(self, h):
        b = h.shape[0]
        return self.head(h.view(b, -1))  # hazard: CTG101

    def forward(self, x):
        y = self.conv(x)
        h = y.transpose(1, 2)
        h = F.dropout(h, self.p, self.training)
        h = F.gelu(h) * 0.5
        return self.project(h)


def main():
    ConvToSeq().train()(torch.randn(2, 4, 6))
