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
    batch_major = h_n.transpose(0, 1)
    return batch_major.view(x.size(0), -1)  # hazard: CTG101


def main():
    sentence_embedding(BiEncoder(), torch.randn(3, 5, 8))
