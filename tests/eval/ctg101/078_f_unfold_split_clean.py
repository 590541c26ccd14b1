import torch
from torch.nn import functional as F


def im2col(x, k):
    return F.unfold(x, kernel_size=k, stride=k)


def per_patch(cols, C, k):
    B, _, L = cols.shape
    return cols.view(B, C, k, k, L)


def main():
    x = torch.randn(2, 3, 8, 8)
    patches = per_patch(im2col(x, 4), 3, 4)
    assert patches.shape == (2, 3, 4, 4, 4)
