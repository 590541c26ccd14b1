import torch
from torch import nn


class SeqClassifier(nn.Module):
    def __init__(self, d_in=8, hidden=16, n_cls=3):
        super().__init__()
        self.hidden = hidden
        self.gru = nn.GRU(d_in, hidden, batch_first=True)
        self.head = nn.Linear(hidden, n_cls)

    def forward(self, x):
        out, _ = self.gru(x)
        last = out[:, -1]
        last = last.view(x.size(0), self.hidden)
        return self.head(last)


def main():
    SeqClassifier()(torch.randn(4, 5, 8))
