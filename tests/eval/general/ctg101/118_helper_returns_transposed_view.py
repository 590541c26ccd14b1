import torch
from torch import nn


def to_time_major(x):
    """(batch, time, feat) -> (time, batch, feat) for the CTC loss."""
    return x.transpose(0, 1)


class CTCHead(nn.Module):
    def __init__(self, dim, vocab):
        super().__init__()
        self.proj = nn.Linear(dim, vocab)

    def forward(self, x):
        logits = self.proj(x)
        tm = to_time_major(logits)
        t, b, v = tm.shape
        log_probs = torch.log_softmax(tm.view(t * b, v), dim=-1)  # hazard: CTG101
        return log_probs.view(t, b, v)


def main():
    head = CTCHead(8, 12)
    print(head(torch.randn(3, 10, 8)).shape)
