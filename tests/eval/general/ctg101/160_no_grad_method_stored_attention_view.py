import torch
from torch import nn


class InspectableAttention(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.q = nn.Linear(dim, dim)
        self.k = nn.Linear(dim, dim)
        self.last_attn = None

    def forward(self, x):
        attn = torch.softmax(self.q(x) @ self.k(x).transpose(1, 2), dim=-1)
        self._store(attn)
        return attn @ x

    @torch.no_grad()
    def _store(self, attn):
        self.last_attn = attn.transpose(1, 2)

    @property
    def attention_rows(self):
        b, k, q = self.last_attn.shape
        return self.last_attn.view(b * k, q)  # hazard: CTG101


def main():
    layer = InspectableAttention(6)
    layer(torch.randn(2, 5, 6))
    print(layer.attention_rows.shape)
