import torch
from torch import nn


class FlatChannelMixer(nn.Module):
    """Operates on flattened (batch, tokens * dim) feature vectors."""

    def __init__(self, tokens, dim):
        super().__init__()
        self.tokens = tokens
        self.dim = dim
        self.mix = nn.Linear(dim, dim)

    def forward(self, flat):
        b = flat.size(0)
        h = flat.view(b, self.tokens, self.dim)
        delta = self.mix(h)
        return flat + delta.view_as(flat)


def main():
    mixer = FlatChannelMixer(5, 6)
    print(mixer(torch.randn(3, 30)).shape)
