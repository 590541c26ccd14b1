import torch
from torch import nn


class TruncatedPooler(nn.Module):
    def __init__(self, dim, max_batch):
        super().__init__()
        self.max_batch = max_batch
        self.score = nn.Linear(dim, 1)

    def forward(self, hidden):
        b, t, d = hidden.shape
        kept = hidden.narrow(0, 0, min(b, self.max_batch))
        tokens = kept.view(-1, d)
        weights = torch.softmax(self.score(tokens).view(kept.size(0), -1), dim=-1)
        return (weights.unsqueeze(-1) * kept).sum(1)


def main():
    pooler = TruncatedPooler(16, max_batch=2)
    print(pooler(torch.randn(3, 12, 16)).shape)
