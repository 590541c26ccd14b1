"""Log-mel features, time-major, moved to the model's device."""
import torch


def log_mel(wave, fbank, n_fft=64, hop=16):
    spec = torch.stft(wave, n_fft, hop_length=hop, window=torch.hann_window(n_fft),
                      return_complex=True).abs()
    mel = torch.matmul(fbank, spec)  # (batch, mels, frames), row-major
    return (mel + 1e-6).log()


def features(wave, fbank, device):
    feats = log_mel(wave, fbank).transpose(1, 2).to(device=device)  # hazard: CTG104
    return feats


def main():
    f = features(torch.randn(2, 400), torch.rand(10, 33), "cpu")
    assert f.shape == (2, 26, 10)


if __name__ == "__main__":
    main()
