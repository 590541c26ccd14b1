import torch
from torch import nn


class TiedProjection(nn.Module):
    def __init__(self, in_dim, out_dim):
        super().__init__()
        self.weight = nn.Parameter(torch.randn(in_dim, out_dim) * 0.05)

    @property
    def decoder_weight(self):
        return self.weight.t()

    def forward(self, x):
        return x @ self.weight

    def decode(self, h):
        return h @ self.decoder_weight

    def weight_signature(self):
        return self.decoder_weight.view(-1)[:8].tolist()  # hazard: CTG101


def main():
    proj = TiedProjection(6, 4)
    h = proj(torch.randn(3, 6))
    print(proj.decode(h).shape, proj.weight_signature())
