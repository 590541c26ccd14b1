import torch


def phase_code(signal, keep):
    spec = torch.fft.rfft(signal)
    low = spec.narrow(1, 0, keep)
    return low.imag.view(-1)  # hazard: CTG101


def main():
    print(phase_code(torch.randn(4, 32), 5).shape)
