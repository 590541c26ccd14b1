import torch
from torch import nn


class TwoStreamEncoder(nn.Module):
    def __init__(self, ch_a, ch_b, dim):
        super().__init__()
        self.conv_a = nn.Conv1d(ch_a, dim, 3, padding=1)
        self.conv_b = nn.Conv1d(ch_b, dim, 3, padding=1)

    def forward(self, a, b):
        fa = self.conv_a(a).transpose(1, 2)
        fb = self.conv_b(b).transpose(1, 2)
        both = torch.cat([fa, fb], dim=1)
        bsz, t, d = both.shape
        return both.view(bsz * t, d)


def main():
    enc = TwoStreamEncoder(3, 5, 8)
    print(enc(torch.randn(2, 3, 7), torch.randn(2, 5, 7)).shape)
