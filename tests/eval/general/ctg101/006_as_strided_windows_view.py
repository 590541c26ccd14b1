import torch
from torch import nn


def sliding_windows(x, size, step):
    b, length = x.shape
    n = (length - size) // step + 1
    return x.as_strided((b, n, size), (x.stride(0), step, 1))


class WindowClassifier(nn.Module):
    def __init__(self, size=32, step=8, classes=5):
        super().__init__()
        self.size = size
        self.step = step
        self.head = nn.Linear(size, classes)

    def forward(self, x):
        win = sliding_windows(x, self.size, self.step)
        b, n, size = win.shape
        logits = self.head(win.view(b * n, size))  # hazard: CTG101
        return logits.view(b, n, -1).mean(1)


def main():
    model = WindowClassifier()
    x = torch.randn(3, 256)
    print(model(x).shape)
