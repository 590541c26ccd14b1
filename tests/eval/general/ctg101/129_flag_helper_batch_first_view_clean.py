import torch
from torch import nn


def maybe_batch_first(x, batch_first):
    return x if batch_first else x.transpose(0, 1)


class SeqClassifier(nn.Module):
    def __init__(self, dim, seq_len, classes, batch_first):
        super().__init__()
        self.batch_first = batch_first
        self.fc = nn.Linear(seq_len * dim, classes)

    def forward(self, x):
        x = maybe_batch_first(x, self.batch_first)
        b = x.size(0)
        return self.fc(x.view(b, -1))


def main():
    clf = SeqClassifier(8, 6, 3, batch_first=True)
    print(clf(torch.randn(4, 6, 8)).shape)
