import torch
from torch import nn


class MatryoshkaEmbedding(nn.Module):
    """Truncates pretrained embeddings to their first `dim` coordinates."""

    def __init__(self, pretrained, dim):
        super().__init__()
        self.weight = nn.Parameter(pretrained[:, :dim])  # hazard: CTG103

    def forward(self, ids):
        return nn.functional.embedding(ids, self.weight)


def main():
    table = torch.randn(100, 64)
    emb = MatryoshkaEmbedding(table, 16)
    print(emb(torch.randint(0, 100, (2, 5))).shape)
