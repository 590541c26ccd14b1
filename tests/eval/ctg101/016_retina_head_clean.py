import torch
from torch import nn


def permute_to_nkhw(t, k):
    n, _, h, w = t.shape
    t = t.view(n, -1, k, h, w)
    t = t.permute(0, 3, 4, 1, 2)
    return t.reshape(n, -1, k)


class BoxHead(nn.Module):
    def __init__(self, in_ch=16, num_anchors=3):
        super().__init__()
        self.bbox_reg = nn.Conv2d(in_ch, num_anchors * 4, 3, padding=1)

    def forward(self, features):
        return torch.cat([permute_to_nkhw(self.bbox_reg(f), 4) for f in features], dim=1)


def main():
    deltas = BoxHead()([torch.randn(2, 16, 8, 8), torch.randn(2, 16, 4, 4)])
    flat = deltas.view(-1, 4)
    assert flat.shape[1] == 4
