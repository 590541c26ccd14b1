import torch
from torch import nn


class StepCollector(nn.Module):
    def __init__(self, dim, hidden):
        super().__init__()
        self.proj = nn.Linear(dim, hidden)
        self.out = nn.Linear(hidden, 1)

    def forward(self, x):
        seq = torch.tanh(self.proj(x)).cumsum(dim=1)
        steps = []
        steps.extend(seq.unbind(1))
        last = steps[-1]
        first = steps[0]
        summary = torch.cat([first, last], dim=-1)
        flat_first = first.view(-1)  # hazard: CTG101
        return self.out(last), summary.view(-1), flat_first


def main():
    model = StepCollector(5, 8)
    out, summary, first = model(torch.randn(3, 7, 5))
    print(out.shape, summary.shape, first.shape)
