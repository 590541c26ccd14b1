import torch
from torch import nn


class MicroBatchRunner(nn.Module):
    def __init__(self, dim, classes):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(dim, 64), nn.GELU(), nn.Linear(64, classes))

    def forward(self, x, micro_batch=4):
        outs = []
        for chunk in x.split(micro_batch, dim=0):
            flat = chunk.view(-1, chunk.size(-1))
            outs.append(self.net(flat).view(chunk.size(0), chunk.size(1), -1))
        return torch.cat(outs, dim=0)


def main():
    runner = MicroBatchRunner(dim=32, classes=10)
    x = torch.randn(10, 5, 32)
    print(runner(x).shape)
