import torch
from torch import nn


class PairClassifier(nn.Module):
    """Sentences are batched as consecutive (premise, hypothesis) pairs."""

    def __init__(self, dim, classes):
        super().__init__()
        self.encoder = nn.TransformerEncoder(
            nn.TransformerEncoderLayer(dim, nhead=2, dim_feedforward=32, batch_first=True), 1
        )
        self.head = nn.Linear(2 * dim, classes)

    def forward(self, tokens):
        h = self.encoder(tokens)
        cls = h.select(1, 0)
        b, d = cls.shape
        pairs = cls.view(b // 2, 2 * d)  # hazard: CTG101
        return self.head(pairs)


def main():
    model = PairClassifier(16, 3)
    model.eval()
    print(model(torch.randn(6, 9, 16)).shape)
