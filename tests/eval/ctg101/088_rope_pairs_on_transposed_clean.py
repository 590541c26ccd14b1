import torch
from torch import nn


def apply_rotary(x, freqs_cis):
    xc = torch.view_as_complex(x.float().view(*x.shape[:-1], -1, 2))
    return torch.view_as_real(xc * freqs_cis).flatten(3).type_as(x)


class RoPEAttention(nn.Module):
    def __init__(self, dim=16, heads=2):
        super().__init__()
        self.heads = heads
        self.wq = nn.Linear(dim, dim)

    def forward(self, x, freqs_cis):
        B, N, C = x.shape
        q = self.wq(x).view(B, N, self.heads, -1).transpose(1, 2)
        return apply_rotary(q, freqs_cis)


def main():
    freqs = torch.polar(torch.ones(5, 4), torch.randn(5, 4))
    RoPEAttention()(torch.randn(2, 5, 16), freqs)
