import torch
from torch import nn


class BiEncoder(nn.Module):
    def __init__(self, d=8, hidden=16):
        super().__init__()
        self.rnn = nn.LSTM(d, hidden, bidirectional=True, batch_first=True)

    def forward(self, x):
        _, (h_n, _) = self.rnn(x)
        return h_n


def sentence_embedding(encoder, x):
    h_n = encoder(x)
    both = torch.cat([h_n[-2], h_n[-1]], dim=1)
    return both.view(x.size(0), 2, -1)


def main():
    sentence_embedding(BiEncoder(), torch.randn(3, 5, 8))
