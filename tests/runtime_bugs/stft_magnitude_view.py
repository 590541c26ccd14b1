"""Audio features from torch.stft: the spectrogram is (batch, freq, frames) with frames-major
memory, so flattening the magnitude with .view() for a linear classifier raises."""
import torch

signal = torch.randn(2, 1600)
spectrum = torch.stft(signal, n_fft=128, hop_length=64, window=torch.hann_window(128),
                      return_complex=True)
magnitude = spectrum.abs()
features = magnitude.view(signal.size(0), -1)  # bug-line: CTG101
