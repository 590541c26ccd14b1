import torch
from torch import nn


def log_histograms(step, **named_tensors):
    rows = []
    for name, tensor in named_tensors.items():
        flat = tensor.view(-1)
        rows.append((step, name, flat.min().item(), flat.max().item()))
    return rows


def main():
    model = nn.Sequential(nn.Linear(6, 10), nn.ReLU(), nn.Linear(10, 2))
    x = torch.randn(4, 6)
    model(x).sum().backward()
    w = model[0].weight
    rows = log_histograms(1, weight=w.detach(), grad=w.grad, bias_grad=model[0].bias.grad)
    for r in rows:
        print(r)
