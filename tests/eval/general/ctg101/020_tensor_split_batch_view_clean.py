import torch
from torch import nn


class ShardedEncoder(nn.Module):
    def __init__(self, dim, out_dim, shards):
        super().__init__()
        self.shards = shards
        self.proj = nn.Linear(dim, out_dim)

    def forward(self, feats):
        b, t, d = feats.shape
        parts = torch.tensor_split(feats, self.shards, dim=0)
        outs = []
        for part in parts:
            tokens = part.view(-1, d)
            outs.append(self.proj(tokens).view(part.size(0), t, -1))
        return torch.cat(outs)


def main():
    enc = ShardedEncoder(dim=24, out_dim=8, shards=3)
    print(enc(torch.randn(7, 5, 24)).shape)
