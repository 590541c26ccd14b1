import torch
from torch import nn


class ScoreBuffer(nn.Module):
    def __init__(self, n_items):
        super().__init__()
        self.register_buffer("prior", torch.zeros(1, n_items))

    @torch.no_grad()
    def score(self, users, items):
        raw = users @ items.t()
        out = self.prior.expand(raw.size(0), -1)
        torch.add(raw, 1.0, out=out)  # hazard: CTG108
        return out


def main():
    buf = ScoreBuffer(7)
    print(buf.score(torch.randn(3, 4), torch.randn(7, 4)).shape)
