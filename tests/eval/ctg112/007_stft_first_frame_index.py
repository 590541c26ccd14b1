"""Saves the first frame of a magnitude spectrogram as a reference print."""
import io

import torch


def magnitude(wave):
    spec = torch.stft(wave, 64, hop_length=16, window=torch.hann_window(64), return_complex=True)
    return spec.abs()


def save_reference(wave, f):
    mag = magnitude(wave)
    torch.save([mag[0]], f)  # hazard: CTG112


def main():
    save_reference(torch.randn(4, 800), io.BytesIO())


if __name__ == "__main__":
    main()
