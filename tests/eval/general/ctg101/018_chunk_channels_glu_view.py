import torch
from torch import nn


class ConvGLUBlock(nn.Module):
    def __init__(self, channels, kernel_size=3):
        super().__init__()
        self.conv = nn.Conv1d(channels, 2 * channels, kernel_size, padding=kernel_size // 2)
        self.norm = nn.LayerNorm(channels)

    def forward(self, x):
        b, c, length = x.shape
        a, g = self.conv(x).chunk(2, dim=1)
        rows = a.view(b * c, length)  # hazard: CTG101
        gated = rows * torch.sigmoid(g.reshape(b * c, length))
        out = gated.view(b, c, length) + x
        return self.norm(out.transpose(1, 2)).transpose(1, 2)


def main():
    block = ConvGLUBlock(8)
    print(block(torch.randn(2, 8, 50)).shape)
