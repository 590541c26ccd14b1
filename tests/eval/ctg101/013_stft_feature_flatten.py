import torch


def spectrogram(wave, n_fft=64, hop=16):
    window = torch.hann_window(n_fft)
    spec = torch.stft(wave, n_fft, hop_length=hop, window=window, return_complex=True)
    return spec.abs().pow(2)


def log_mel_like(spec, eps=1e-6):
    return torch.log(spec + eps)


class FrameMLP(torch.nn.Module):
    def __init__(self, feat_dim):
        super().__init__()
        self.lin = torch.nn.Linear(feat_dim, 4)

    def forward(self, wave):
        feats = log_mel_like(spectrogram(wave))
        B = feats.shape[0]
        return self.lin(feats.view(B, -1))  # hazard: CTG101


def main():
    wave = torch.randn(2, 400)
    n_frames = 400 // 16 + 1
    FrameMLP(33 * n_frames)(wave)
