"""The trainer converts the model to channels_last; the block's forward makes its output NCHW."""
import torch
import torch.nn as nn


class Block(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.conv = nn.Conv2d(c, c, 3, padding=1)
        self.bn = nn.BatchNorm2d(c)

    def forward(self, x):
        y = self.bn(self.conv(x))
        return y.contiguous()  # hazard: CTG110


def build():
    model = Block(4)
    return model.to(memory_format=torch.channels_last)


def main():
    model = build().eval()
    with torch.no_grad():
        assert model(torch.randn(1, 4, 8, 8)).shape == (1, 4, 8, 8)


if __name__ == "__main__":
    main()
