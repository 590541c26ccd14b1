import torch
from torch import nn


class FrameEncoder(nn.Module):
    def __init__(self, win_length=160, hop_length=160, out_dim=64):
        super().__init__()
        self.win_length = win_length
        self.hop_length = hop_length
        self.proj = nn.Linear(win_length, out_dim)
        self.register_buffer("window", torch.hann_window(win_length))

    def forward(self, wave):
        frames = wave.unfold(-1, 160, 160)
        batch, n_frames, _ = frames.shape
        flat = frames.view(batch, -1)
        energy = flat.pow(2).mean(dim=-1, keepdim=True)
        feats = self.proj(frames * self.window)
        return feats, energy


def main():
    enc = FrameEncoder()
    wave = torch.randn(2, 16000)
    feats, energy = enc(wave)
    print(feats.shape, energy.shape)
