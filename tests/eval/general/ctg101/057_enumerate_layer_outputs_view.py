import torch
from torch import nn


class ProbedEncoder(nn.Module):
    def __init__(self, dim, depth):
        super().__init__()
        self.layers = nn.ModuleList(nn.Linear(dim, dim) for _ in range(depth))

    def forward(self, x):
        hidden_states = []
        h = x
        for layer in self.layers:
            h = torch.tanh(layer(h))
            hidden_states.append(h.transpose(0, 1))
        return h, hidden_states


def layer_norms(hidden_states):
    norms = {}
    for i, hs in enumerate(hidden_states):
        t, b, d = hs.shape
        norms[f"layer{i}"] = hs.view(t * b, d).norm(dim=-1).mean()  # hazard: CTG101
    return norms


def main():
    enc = ProbedEncoder(8, 3)
    _, hs = enc(torch.randn(2, 5, 8))
    print(layer_norms(hs))
