"""MFCC layer keeps the first k DCT basis vectors as a buffer."""
import math

import torch
import torch.nn as nn


def dct_matrix(n):
    k = torch.arange(n).float()
    basis = torch.cos(math.pi / n * (k[None, :] + 0.5) * k[:, None])
    return basis.t().contiguous()  # (n_mels, n_mels), columns are basis vectors


class MFCC(nn.Module):
    def __init__(self, n_mels, n_mfcc):
        super().__init__()
        basis = dct_matrix(n_mels)
        self.register_buffer("dct", basis[:, :n_mfcc])  # hazard: CTG103

    def forward(self, mel):
        return mel @ self.dct


def main():
    m = MFCC(40, 13)
    assert m(torch.randn(2, 100, 40)).shape == (2, 100, 13)


if __name__ == "__main__":
    main()
