import torch
from torch import nn


class GradAccumulator:
    def __init__(self, model):
        self.model = model
        self.buffers = {}

    def accumulate(self):
        for name, p in self.model.named_parameters():
            g = p.grad.t() if p.grad.dim() == 2 else p.grad
            if name not in self.buffers:
                self.buffers[name] = torch.zeros_like(g, dtype=torch.float64, memory_format=torch.contiguous_format)
            self.buffers[name] += g

    def flat(self):
        return torch.cat([b.view(-1) for b in self.buffers.values()])


def main():
    model = nn.Linear(5, 3)
    acc = GradAccumulator(model)
    for _ in range(2):
        model.zero_grad()
        model(torch.randn(4, 5)).pow(2).sum().backward()
        acc.accumulate()
    print(acc.flat().shape)
