import torch
from torch import nn


class FactorizedEmbedding(nn.Module):
    def __init__(self, vocab, dim):
        super().__init__()
        self.table = nn.Embedding(vocab, dim)

    def export_halves(self):
        weight = self.table.weight.detach()
        top, bottom = torch.vsplit(weight, 2)
        return top.view(-1), bottom.reshape(-1)

    def forward(self, ids):
        return self.table(ids)


def main():
    emb = FactorizedEmbedding(100, 16)
    top, bottom = emb.export_halves()
    print(top.shape, bottom.shape)
