import torch
from torch import nn


class QKNormProbe(nn.Module):
    def __init__(self, dim, heads):
        super().__init__()
        self.dim = dim
        self.heads = heads
        self.head_dim = dim // heads
        self.qkv = nn.Linear(dim, 3 * dim, bias=False)

    def key_norms(self, x):
        q, k, v = self.qkv(x).split(self.dim, dim=-1)
        per_head = k.view(-1, self.head_dim)  # hazard: CTG101
        return per_head.norm(dim=-1).view(x.size(0), x.size(1), self.heads)


def main():
    probe = QKNormProbe(48, 6)
    x = torch.randn(3, 7, 48)
    print(probe.key_norms(x).mean())
