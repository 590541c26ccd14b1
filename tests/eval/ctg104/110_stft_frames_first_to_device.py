"""STFT features made time-major and moved (stft output is frame-major in memory already)."""
import torch


def log_spec(wave, n_fft=64, hop=16):
    spec = torch.stft(wave, n_fft, hop_length=hop, window=torch.hann_window(n_fft),
                      return_complex=True)
    return (spec.abs() + 1e-6).log()  # (batch, freq, frames)


def features(wave, device):
    feats = log_spec(wave).transpose(1, 2).to(device=device)
    return feats


def main():
    f = features(torch.randn(2, 400), "cpu")
    assert f.shape == (2, 26, 33)


if __name__ == "__main__":
    main()
