import torch
from torch import nn


def window_partition(x, ws):
    B, H, W, C = x.shape
    x = x.view(B, H // ws, ws, W // ws, ws, C)
    return x.permute(0, 1, 3, 2, 4, 5).contiguous().view(-1, ws, ws, C)


def window_reverse(windows, ws, H, W):
    B = windows.shape[0] // ((H // ws) * (W // ws))
    x = windows.view(B, H // ws, W // ws, ws, ws, -1)
    x = x.permute(0, 1, 3, 2, 4, 5)
    return x.view(B, H, W, -1)  # hazard: CTG101


class SwinBlock(nn.Module):
    def __init__(self, dim=8, ws=2):
        super().__init__()
        self.ws = ws
        self.norm = nn.LayerNorm(dim)
        self.mlp = nn.Linear(dim, dim)

    def forward(self, x):
        B, H, W, C = x.shape
        shortcut = x
        x = torch.roll(self.norm(x), shifts=(-1, -1), dims=(1, 2))
        windows = window_partition(x, self.ws)
        windows = self.mlp(windows.view(-1, self.ws * self.ws, C))
        windows = windows.view(-1, self.ws, self.ws, C)
        x = window_reverse(windows, self.ws, H, W)
        return shortcut + torch.roll(x, shifts=(1, 1), dims=(1, 2))


def main():
    SwinBlock()(torch.randn(2, 4, 4, 8))
