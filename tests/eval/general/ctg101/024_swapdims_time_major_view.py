import torch
from torch import nn


class TimeMajorGRU(nn.Module):
    def __init__(self, in_dim, hidden):
        super().__init__()
        self.rnn = nn.GRU(in_dim, hidden)
        self.classifier = nn.Linear(hidden, 3)

    def forward(self, x):
        x = x.swapdims(0, 1)
        out, _ = self.rnn(x)
        steps, batch, hidden = out.shape
        logits = self.classifier(out)
        return x.view(steps * batch, -1), logits  # hazard: CTG101


def main():
    model = TimeMajorGRU(10, 20)
    flat, logits = model(torch.randn(4, 7, 10))
    print(flat.shape, logits.shape)
