import torch
import torch.nn.functional as F
from torch import nn


class TokenMLP(nn.Module):
    def __init__(self, tokens, hidden, dim):
        super().__init__()
        self.fc1 = nn.Linear(tokens, hidden)
        self.fc2 = nn.Linear(hidden, tokens)
        self.norm = nn.LayerNorm(dim)

    def forward(self, x):
        b, t, d = x.shape
        h = self.fc2(F.gelu(self.fc1(x.transpose(1, 2))))
        h = self.norm(h.transpose(1, 2))
        return h.view(b * t, d)


def main():
    mlp = TokenMLP(6, 16, 10)
    print(mlp(torch.randn(2, 6, 10)).shape)
