import torch
from torch import nn


class Transpose(nn.Module):
    def __init__(self, dim0, dim1):
        super().__init__()
        self.dims = (dim0, dim1)

    def forward(self, x):
        return x.transpose(*self.dims)


class ConvFrontend(nn.Module):
    def __init__(self, in_ch, dim, seq_len, classes):
        super().__init__()
        self.blocks = nn.ModuleList([
            nn.Conv1d(in_ch, dim, 3, padding=1),
            nn.GELU(),
            Transpose(1, 2),
            nn.LayerNorm(dim),
        ])
        self.fc = nn.Linear(seq_len * dim, classes)

    def forward(self, x):
        for block in self.blocks:
            x = block(x)
        return self.fc(x.view(x.size(0), -1))


class ConvFrontendNoNorm(ConvFrontend):
    def __init__(self, in_ch, dim, seq_len, classes):
        super().__init__(in_ch, dim, seq_len, classes)
        self.blocks = nn.ModuleList([nn.Conv1d(in_ch, dim, 3, padding=1), nn.GELU(), Transpose(1, 2)])

    def forward(self, x):
        for block in self.blocks:
            x = block(x)
        return self.fc(x.view(x.size(0), -1))  # hazard: CTG101


def main():
    print(ConvFrontend(3, 8, 12, 4)(torch.randn(2, 3, 12)).shape)
    print(ConvFrontendNoNorm(3, 8, 12, 4)(torch.randn(2, 3, 12)).shape)
