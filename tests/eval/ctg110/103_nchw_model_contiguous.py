"""Plain NCHW model: `.contiguous()` on a conv output is a no-op."""
import torch
import torch.nn as nn


class Block(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.conv = nn.Conv2d(c, c, 3, padding=1)

    def forward(self, x):
        return self.conv(x).contiguous()


def main():
    with torch.no_grad():
        assert Block(4)(torch.randn(1, 4, 8, 8)).shape == (1, 4, 8, 8)


if __name__ == "__main__":
    main()
