import torch
from torch import nn


class TokenMixer(nn.Module):
    def __init__(self, tokens, channels):
        super().__init__()
        self.mix = nn.Linear(tokens, tokens)
        self.channels = channels

    def forward(self, x):
        b, t, c = x.shape
        mixed = self.mix(x.transpose(1, 2))
        flat = mixed.transpose(1, 2).flatten(1)
        return flat.view(b, t, c)


def main():
    mixer = TokenMixer(9, 12)
    print(mixer(torch.randn(2, 9, 12)).shape)
