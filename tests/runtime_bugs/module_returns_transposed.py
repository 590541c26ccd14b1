"""A token mixer returns its output still transposed; every consumer downstream pays for it."""
import torch
from torch import nn


class TokenMixer(nn.Module):
    def __init__(self, tokens):
        super().__init__()
        self.mix = nn.Linear(tokens, tokens)

    def forward(self, x):                       # x: (batch, tokens, channels)
        return self.mix(x.transpose(1, 2)).transpose(1, 2)


mixer = TokenMixer(16)
out = mixer(torch.randn(2, 16, 32))  # bug-line: CTG202
