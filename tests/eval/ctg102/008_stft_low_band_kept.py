"""Spectrogram front end caches the low-frequency band of the last batch."""
import torch


def spectrogram(wave, n_fft=64, hop=16):
    window = torch.hann_window(n_fft)
    spec = torch.stft(wave, n_fft, hop_length=hop, window=window, return_complex=True)
    return spec.abs()  # (batch, freq, frames)


class LowBandTracker:
    def __init__(self, bins):
        self.bins = bins
        self.last_band = None

    def observe(self, wave):
        spec = spectrogram(wave)
        self.last_band = spec[:, :, ::2]  # hazard: CTG102
        return spec.mean()


def main():
    t = LowBandTracker(8)
    t.observe(torch.randn(2, 400))
    assert t.last_band.dim() == 3


if __name__ == "__main__":
    main()
