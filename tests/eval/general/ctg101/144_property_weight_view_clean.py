import torch
from torch import nn


class TiedProjection(nn.Module):
    def __init__(self, in_dim, out_dim):
        super().__init__()
        self.weight = nn.Parameter(torch.randn(in_dim, out_dim) * 0.05)

    @property
    def decoder_weight(self):
        return self.weight.t()

    @property
    def encoder_weight(self):
        return self.weight

    def forward(self, x):
        return x @ self.encoder_weight

    def decode(self, h):
        return h @ self.decoder_weight

    def weight_signature(self):
        return self.encoder_weight.view(-1)[:8].tolist()


def main():
    proj = TiedProjection(6, 4)
    h = proj(torch.randn(3, 6))
    print(proj.decode(h).shape, proj.weight_signature())
