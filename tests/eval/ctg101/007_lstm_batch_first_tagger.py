import torch
from torch import nn


class Tagger(nn.Module):
    def __init__(self, vocab=50, emb=8, hidden=16, tags=5):
        super().__init__()
        self.hidden = hidden
        self.emb = nn.Embedding(vocab, emb)
        self.rnn = nn.LSTM(emb, hidden, batch_first=True)
        self.fc = nn.Linear(hidden, tags)

    def encode(self, tokens):
        out, _ = self.rnn(self.emb(tokens))
        return out

    def forward(self, tokens):
        h = self.encode(tokens)
        logits = self.fc(h.view(-1, self.hidden))  # hazard: CTG101
        return logits


def main():
    Tagger()(torch.randint(0, 50, (3, 6)))
