import torch


def phase(signal):
    spec = torch.fft.rfft(signal)
    return spec.imag.view(-1)


def main():
    print(phase(torch.randn(4, 32)).shape)
