import torch
from torch import nn


def flatten_tokens(x):
    return x.view(-1, x.shape[-1])


class EncoderLoss(nn.Module):
    def __init__(self, d=8, v=11):
        super().__init__()
        self.head = nn.Linear(d, v)

    def forward(self, hidden, labels):
        return nn.functional.cross_entropy(self.head(flatten_tokens(hidden)), labels.view(-1))


class TimeMajorDecoderLoss(nn.Module):
    def __init__(self, d=8, v=11):
        super().__init__()
        self.head = nn.Linear(d, v)

    def forward(self, hidden_tbd, labels):
        logits = self.head(flatten_tokens(hidden_tbd))
        return nn.functional.cross_entropy(logits, labels.t().reshape(-1))


def main():
    labels = torch.randint(0, 11, (2, 5))
    EncoderLoss()(torch.randn(2, 5, 8), labels)
    TimeMajorDecoderLoss()(torch.randn(5, 2, 8), labels)
