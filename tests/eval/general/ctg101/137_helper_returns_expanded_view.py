import torch
from torch import nn


def broadcast_query(query, n_keys):
    """query: (batch, dim) -> (batch, n_keys, dim)."""
    return query.unsqueeze(1).expand(-1, n_keys, -1)


class AdditiveAttention(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.score = nn.Linear(2 * dim, 1)

    def forward(self, query, keys):
        b, n, d = keys.shape
        q = broadcast_query(query, n)
        pairs = torch.cat([q.view(b * n, d), keys.view(b * n, d)], dim=-1)  # hazard: CTG101
        return torch.softmax(self.score(pairs).view(b, n), dim=-1)


def main():
    attn = AdditiveAttention(8)
    print(attn(torch.randn(3, 8), torch.randn(3, 5, 8)).shape)
