import torch
from torch import nn


class TiedDecoder(nn.Module):
    def __init__(self, vocab, dim):
        super().__init__()
        self.embed = nn.Embedding(vocab, dim)
        self.bias = nn.Parameter(torch.zeros(vocab))

    def decoder_weight(self):
        return self.embed.weight.t()

    def flat_decoder(self):
        w = self.decoder_weight()
        return w.view(-1)  # hazard: CTG101

    def forward(self, h):
        return h @ self.decoder_weight() + self.bias


def main():
    dec = TiedDecoder(50, 8)
    print(dec(torch.randn(3, 8)).shape)
    print(dec.flat_decoder().shape)
