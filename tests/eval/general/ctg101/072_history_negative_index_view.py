import torch
from torch import nn


class RecurrentRefiner(nn.Module):
    def __init__(self, dim, iters=3):
        super().__init__()
        self.iters = iters
        self.update = nn.Linear(dim, dim)

    def forward(self, x):
        history = [x]
        h = x
        for _ in range(self.iters):
            h = h + torch.tanh(self.update(h))
            history.append(h.transpose(0, 1))
            h = history[-1].transpose(0, 1)
        final = history[-1]
        return final.view(-1, final.size(-1))  # hazard: CTG101


def main():
    model = RecurrentRefiner(8)
    print(model(torch.randn(3, 5, 8)).shape)
