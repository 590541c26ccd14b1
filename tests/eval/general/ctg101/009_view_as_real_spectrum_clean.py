import torch
from torch import nn


class SpectralFeatures(nn.Module):
    def __init__(self, channels, n_fft):
        super().__init__()
        self.n_bins = n_fft // 2 + 1
        self.mix = nn.Linear(self.n_bins * 2, 32)

    def forward(self, x):
        b, c, t = x.shape
        spec = torch.fft.rfft(x, dim=-1)
        ri = torch.view_as_real(spec)
        ri = ri.view(b, c, -1)
        return self.mix(ri)


def main():
    model = SpectralFeatures(channels=4, n_fft=64)
    x = torch.randn(2, 4, 64)
    print(model(x).shape)
