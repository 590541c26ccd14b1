import torch
from torch import nn


class PairClassifier(nn.Module):
    def __init__(self, dim, seq_len, classes):
        super().__init__()
        self.encoder = nn.TransformerEncoder(
            nn.TransformerEncoderLayer(dim, nhead=2, dim_feedforward=32, batch_first=True), 1
        )
        self.head = nn.Linear(seq_len * dim, classes)

    def forward(self, tokens):
        h = self.encoder(tokens)
        scores = []
        for i in range(h.size(0)):
            sample = h.select(0, i)
            scores.append(self.head(sample.view(-1)))
        return torch.stack(scores)


def main():
    model = PairClassifier(16, 9, 3)
    model.eval()
    print(model(torch.randn(6, 9, 16)).shape)
