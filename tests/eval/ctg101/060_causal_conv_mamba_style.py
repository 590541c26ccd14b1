import torch
from torch import nn


class CausalConvMixer(nn.Module):
    def __init__(self, d=8, k=4):
        super().__init__()
        self.conv1d = nn.Conv1d(d, d, k, groups=d, padding=k - 1)
        self.out = nn.Linear(d, d)

    def conv(self, x):
        L = x.shape[1]
        return self.conv1d(x.transpose(1, 2))[..., :L]

    def forward(self, x):
        B, L, D = x.shape
        y = torch.nn.functional.silu(self.conv(x)).transpose(1, 2)
        return self.out(y.view(B * L, D)).view(B, L, D)  # hazard: CTG101


def main():
    CausalConvMixer()(torch.randn(2, 6, 8))
