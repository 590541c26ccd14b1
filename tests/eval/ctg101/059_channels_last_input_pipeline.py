import torch
from torch import nn


def preprocess(batch_uint8):
    x = batch_uint8.float().div_(255.0)
    return x.contiguous(memory_format=torch.channels_last)


class TinyNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 4, 3, stride=2, padding=1)
        self.act = nn.SiLU()
        self.fc = nn.Linear(4 * 4 * 4, 5)

    def forward(self, x):
        y = self.act(self.conv(x))
        return self.fc(y.view(y.shape[0], -1))  # hazard: CTG101


def main():
    imgs = torch.randint(0, 256, (2, 3, 8, 8), dtype=torch.uint8)
    TinyNet()(preprocess(imgs))
