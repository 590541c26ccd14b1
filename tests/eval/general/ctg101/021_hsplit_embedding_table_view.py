import torch
from torch import nn


class FactorizedEmbedding(nn.Module):
    def __init__(self, vocab, dim):
        super().__init__()
        self.table = nn.Embedding(vocab, 2 * dim)

    def export_halves(self):
        weight = self.table.weight.detach()
        left, right = torch.hsplit(weight, 2)
        return left.view(-1), right.reshape(-1)  # hazard: CTG101

    def forward(self, ids):
        return self.table(ids)


def main():
    emb = FactorizedEmbedding(100, 16)
    left, right = emb.export_halves()
    print(left.shape, right.shape)
