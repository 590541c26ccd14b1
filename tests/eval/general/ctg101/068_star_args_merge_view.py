import torch
from torch import nn


def flatten_all(*tensors):
    return torch.cat([t.view(-1) for t in tensors])  # hazard: CTG101


class LowRankAdapter(nn.Module):
    def __init__(self, dim, rank):
        super().__init__()
        self.down = nn.Parameter(torch.randn(rank, dim) * 0.01)
        self.up = nn.Parameter(torch.zeros(dim, rank))

    def forward(self, x):
        return x + x @ self.down.t() @ self.up.t()

    def state_vector(self):
        return flatten_all(self.down.detach(), self.up.detach().t())


def main():
    adapter = LowRankAdapter(12, 3)
    print(adapter(torch.randn(2, 12)).shape)
    print(adapter.state_vector().shape)
