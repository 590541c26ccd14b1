import torch
from torch import nn


class SpectrumHead(nn.Module):
    def __init__(self, n_bins, classes):
        super().__init__()
        self.fc = nn.Linear(n_bins, classes)

    def forward(self, signal):
        spec = torch.fft.fft(signal, dim=-1)
        real = spec.real
        imag = spec.imag
        flat_real = real.view(-1)
        scale = flat_real.abs().max().clamp_min(1e-6)
        return self.fc(real / scale), self.fc(imag / scale)


def main():
    head = SpectrumHead(32, 4)
    r, i = head(torch.randn(3, 32))
    print(r.shape, i.shape)
