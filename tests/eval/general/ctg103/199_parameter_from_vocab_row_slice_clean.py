import torch
from torch import nn


class PrunedEmbedding(nn.Module):
    """Keeps only the first `keep` rows (most frequent tokens) of a pretrained table."""

    def __init__(self, pretrained, keep):
        super().__init__()
        self.weight = nn.Parameter(pretrained[:keep])

    def forward(self, ids):
        return nn.functional.embedding(ids, self.weight)


def main():
    table = torch.randn(100, 16)
    emb = PrunedEmbedding(table, 40)
    print(emb(torch.randint(0, 40, (2, 5))).shape)
