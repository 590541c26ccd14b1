"""ResNet-style stage on channels_last input returns a contiguous copy for the next stage."""
import torch
import torch.nn as nn


class Stage(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.body = nn.Sequential(nn.Conv2d(c, c, 3, padding=1), nn.BatchNorm2d(c), nn.ReLU())

    def forward(self, x):
        out = x + self.body(x)
        out = out.contiguous()  # hazard: CTG110
        return out


def run(stage, images):
    return stage(images.to(memory_format=torch.channels_last))


def main():
    with torch.no_grad():
        assert run(Stage(4).eval(), torch.randn(2, 4, 8, 8)).shape == (2, 4, 8, 8)


if __name__ == "__main__":
    main()
