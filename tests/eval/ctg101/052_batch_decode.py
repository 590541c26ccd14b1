import torch
from torch import nn


class Decoder(nn.Module):
    def __init__(self, d=16, vocab=20):
        super().__init__()
        self.rnn = nn.GRU(d, d)
        self.out = nn.Linear(d, vocab)

    def step(self, x_btd, h):
        y, h = self.rnn(x_btd.transpose(0, 1), h)
        return y.transpose(0, 1), h

    def greedy(self, x, steps=3):
        h = None
        for _ in range(steps):
            y, h = self.step(x, h)
            B, T, D = y.shape
            logits = self.out(y.view(B * T, D))  # hazard: CTG101
        return logits


def main():
    Decoder().greedy(torch.randn(3, 4, 16))
