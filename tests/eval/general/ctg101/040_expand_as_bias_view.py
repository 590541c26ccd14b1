import torch
from torch import nn


class BiasedScores(nn.Module):
    def __init__(self, n_items):
        super().__init__()
        self.item_bias = nn.Parameter(torch.zeros(1, n_items))

    def forward(self, user_vecs, item_vecs):
        scores = user_vecs @ item_vecs.t()
        bias = self.item_bias.expand_as(scores)
        flat_bias = bias.view(-1)  # hazard: CTG101
        return scores.view(-1) + flat_bias


def main():
    model = BiasedScores(20)
    out = model(torch.randn(4, 8), torch.randn(20, 8))
    print(out.shape)
