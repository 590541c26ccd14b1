import torch
from torch import nn


class StereoFusion(nn.Module):
    def __init__(self, width, dim):
        super().__init__()
        self.width = width
        self.fuse = nn.Linear(2 * width, dim)

    def forward(self, pair):
        b, h, _ = pair.shape
        left, right = torch.dsplit(pair, 2)
        left_rows = left.view(b, -1)  # hazard: CTG101
        right_rows = right.reshape(b, -1)
        return self.fuse(torch.cat([left_rows, right_rows], dim=-1).view(b, h, -1))


def main():
    model = StereoFusion(width=12, dim=16)
    pair = torch.randn(2, 6, 24)
    print(model(pair).shape)
