import torch
from torch import nn


class RotaryCache(nn.Module):
    def __init__(self, head_dim, max_len, base=10000.0):
        super().__init__()
        inv_freq = 1.0 / (base ** (torch.arange(0, head_dim, 2).float() / head_dim))
        angles = torch.outer(torch.arange(max_len).float(), inv_freq)
        cos_sin = torch.stack([angles.cos(), angles.sin()], dim=0)
        cos, sin = cos_sin.unbind(0)
        self.register_buffer("cos_cached", cos, persistent=False)
        self.register_buffer("sin_cached", sin, persistent=False)

    def forward(self, x):
        t = x.size(-2)
        x1, x2 = x[..., ::2], x[..., 1::2]
        cos, sin = self.cos_cached[:t], self.sin_cached[:t]
        return torch.cat([x1 * cos - x2 * sin, x1 * sin + x2 * cos], dim=-1)


def main():
    rope = RotaryCache(8, 16)
    print(rope(torch.randn(2, 4, 10, 8)).shape)
