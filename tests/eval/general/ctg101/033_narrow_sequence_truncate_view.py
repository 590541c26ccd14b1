import torch
from torch import nn


class TruncatedPooler(nn.Module):
    def __init__(self, dim, max_len):
        super().__init__()
        self.max_len = max_len
        self.score = nn.Linear(dim, 1)

    def forward(self, hidden):
        b, t, d = hidden.shape
        kept = hidden.narrow(1, 0, min(t, self.max_len))
        tokens = kept.view(-1, d)  # hazard: CTG101
        weights = torch.softmax(self.score(tokens).view(b, -1), dim=-1)
        return (weights.unsqueeze(-1) * kept).sum(1)


def main():
    pooler = TruncatedPooler(16, max_len=8)
    print(pooler(torch.randn(3, 12, 16)).shape)
