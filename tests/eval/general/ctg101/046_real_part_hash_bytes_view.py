import hashlib

import torch


def spectrum_fingerprint(signal):
    """Hash of the real part of the spectrum, used as a cache key."""
    spec = torch.fft.fft(signal, dim=-1)
    real = spec.real
    raw = real.view(torch.uint8)  # hazard: CTG101
    return hashlib.sha1(bytes(raw.flatten().tolist())).hexdigest()


def main():
    sig = torch.randn(3, 32)
    print(spectrum_fingerprint(sig))
