import torch
from torch import nn


class FlatTokenMixer(nn.Module):
    """Operates on flattened (batch, tokens * dim) feature vectors."""

    def __init__(self, tokens, dim):
        super().__init__()
        self.tokens = tokens
        self.dim = dim
        self.mix = nn.Linear(tokens, tokens)

    def forward(self, flat):
        b = flat.size(0)
        h = flat.view(b, self.tokens, self.dim).transpose(1, 2)
        delta = self.mix(h).transpose(1, 2)
        return flat + delta.view_as(flat)  # hazard: CTG101


def main():
    mixer = FlatTokenMixer(5, 6)
    print(mixer(torch.randn(3, 30)).shape)
