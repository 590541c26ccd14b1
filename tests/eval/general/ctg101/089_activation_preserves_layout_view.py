import torch
import torch.nn.functional as F
from torch import nn


class TokenMLP(nn.Module):
    def __init__(self, tokens, hidden):
        super().__init__()
        self.fc1 = nn.Linear(tokens, hidden)
        self.fc2 = nn.Linear(hidden, tokens)

    def forward(self, x):
        b, t, d = x.shape
        h = self.fc2(F.gelu(self.fc1(x.transpose(1, 2))))
        h = F.dropout(F.gelu(h.transpose(1, 2)), p=0.1, training=self.training)
        return h.view(b * t, d)  # hazard: CTG101


def main():
    mlp = TokenMLP(6, 16)
    print(mlp(torch.randn(2, 6, 10)).shape)
