import torch
from torch import nn


class LayerScaleMixer(nn.Module):
    def __init__(self, tokens, dim, init=1e-2):
        super().__init__()
        self.token_mlp = nn.Linear(tokens, tokens)
        self.gamma = nn.Parameter(init * torch.ones(dim))

    def forward(self, x):
        b, t, d = x.shape
        mixed = self.token_mlp(x.transpose(1, 2))
        h = x + mixed.transpose(1, 2) * self.gamma
        return h.view(b, -1)


def main():
    mixer = LayerScaleMixer(7, 12)
    print(mixer(torch.randn(2, 7, 12)).shape)
