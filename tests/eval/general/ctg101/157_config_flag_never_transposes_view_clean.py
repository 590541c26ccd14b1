import torch
from torch import nn


class Config:
    def __init__(self, time_major=False):
        self.time_major = time_major


class Pooler(nn.Module):
    def __init__(self, cfg, dim, seq_len):
        super().__init__()
        self.cfg = cfg
        self.fc = nn.Linear(dim * seq_len, dim)

    def forward(self, x):
        if self.cfg.time_major:
            x = x.transpose(0, 1)
        b = x.size(0)
        return self.fc(x.view(b, -1))


def main():
    cfg = Config()
    pooler = Pooler(cfg, 8, 5)
    print(pooler(torch.randn(3, 5, 8)).shape)
