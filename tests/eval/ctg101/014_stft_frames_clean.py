import torch


def spectrogram(wave, n_fft=64, hop=16):
    window = torch.hann_window(n_fft)
    spec = torch.stft(wave, n_fft, hop_length=hop, window=window, return_complex=True)
    return spec.abs()


def frames_first(spec):
    return spec.transpose(1, 2)


def main():
    spec = frames_first(spectrogram(torch.randn(2, 400)))
    B, T, F = spec.shape
    frames = spec.view(B * T, F)
    assert frames.shape == (B * T, F)
