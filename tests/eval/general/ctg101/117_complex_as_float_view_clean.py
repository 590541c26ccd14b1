import torch


def pack_spectrum(signal):
    """Turns a (time, freq) complex spectrum into interleaved float pairs."""
    spec = torch.fft.rfft(signal, dim=1)
    time_major = spec
    return time_major.view(torch.float32)


def spectral_payload(frames):
    packed = pack_spectrum(frames)
    scale = packed.abs().amax().clamp_min(1e-6)
    return packed / scale


def main():
    sig = torch.randn(5, 32)
    print(spectral_payload(sig).shape)
