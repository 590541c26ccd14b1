import torch
from torch import nn


class PerTaskScale(nn.Module):
    def __init__(self, n_tasks, dim, task_id):
        super().__init__()
        table = torch.linspace(0.5, 1.5, n_tasks * dim).view(n_tasks, dim)
        self.register_buffer("scale", table.select(0, task_id))
        self.register_buffer("task_table", table.narrow(0, 0, task_id + 1))

    def forward(self, x):
        return x * self.scale


def main():
    layer = PerTaskScale(4, 8, 2)
    print(layer(torch.randn(3, 8)).shape, layer.task_table.shape)
