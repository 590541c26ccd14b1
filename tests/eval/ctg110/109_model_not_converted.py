"""Same block as a channels_last pipeline, but the trainer keeps the model in NCHW."""
import torch
import torch.nn as nn


class Block(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.conv = nn.Conv2d(c, c, 3, padding=1)
        self.bn = nn.BatchNorm2d(c)

    def forward(self, x):
        y = self.bn(self.conv(x))
        return y.contiguous()


def build():
    return Block(4).to(torch.float32)


def main():
    with torch.no_grad():
        assert build().eval()(torch.randn(1, 4, 8, 8)).shape == (1, 4, 8, 8)


if __name__ == "__main__":
    main()
