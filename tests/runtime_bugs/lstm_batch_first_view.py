"""A tagger flattens the batch_first LSTM output with .view(): batch_first outputs are
(batch, time, hidden) views of a time-major buffer, so the view raises."""
import torch
from torch import nn


class Tagger(nn.Module):
    def __init__(self, vocab=20, hidden=16, tags=5):
        super().__init__()
        self.embed = nn.Embedding(vocab, hidden)
        self.lstm = nn.LSTM(hidden, hidden, batch_first=True)
        self.out = nn.Linear(hidden, tags)

    def forward(self, tokens):
        states, _ = self.lstm(self.embed(tokens))
        return self.out(states.view(-1, states.size(-1)))  # bug-line: CTG101


Tagger()(torch.randint(0, 20, (3, 7)))
