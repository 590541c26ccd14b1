"""Decoder output projection initialised as the transposed embedding matrix."""
import torch
import torch.nn as nn


class Decoder(nn.Module):
    def __init__(self, vocab, dim):
        super().__init__()
        self.embed = nn.Embedding(vocab, dim)
        self.out_proj = nn.Parameter(self.embed.weight.detach().clone().t())  # hazard: CTG103

    def forward(self, tokens):
        return self.embed(tokens) @ self.out_proj


def main():
    m = Decoder(30, 8)
    assert m(torch.tensor([[1, 2, 3]])).shape == (1, 3, 30)


if __name__ == "__main__":
    main()
