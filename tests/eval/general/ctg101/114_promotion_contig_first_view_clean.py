import torch
from torch import nn


class MixedResidual(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.conv = nn.Conv1d(dim, dim, 3, padding=1)

    def forward(self, x):
        b, t, d = x.shape
        branch = self.conv(x.transpose(1, 2)).half()
        out = x.float() + branch.transpose(1, 2)
        return out.view(b * t, d)


def main():
    block = MixedResidual(8)
    with torch.no_grad():
        print(block(torch.randn(2, 3, 8)).dtype)
