import torch
from torch import nn


def window_partition(x, ws):
    B, H, W, C = x.shape
    x = x.view(B, H // ws, ws, W // ws, ws, C)
    return x.permute(0, 1, 3, 2, 4, 5).contiguous().view(-1, ws, ws, C)


def window_reverse(windows, ws, H, W):
    B = windows.shape[0] // ((H // ws) * (W // ws))
    x = windows.view(B, H // ws, W // ws, ws, ws, -1)
    x = x.permute(0, 1, 3, 2, 4, 5).contiguous()
    return x.view(B, H, W, -1)


class SwinStage(nn.Module):
    def __init__(self, dim=8, ws=2):
        super().__init__()
        self.ws = ws
        self.proj = nn.Linear(dim, dim)

    def forward(self, x_nchw):
        x = x_nchw.permute(0, 2, 3, 1)
        B, H, W, C = x.shape
        windows = window_partition(x, self.ws)
        windows = self.proj(windows.view(-1, self.ws * self.ws, C))
        out = window_reverse(windows.view(-1, self.ws, self.ws, C), self.ws, H, W)
        return out.view(B, H * W, C)


def main():
    SwinStage()(torch.randn(2, 8, 4, 4))
