"""Example built by merging heads with a copying reshape."""
import torch
import torch.nn as nn


class OutProj(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(32, 8)

    def forward(self, x):
        return self.fc(x)


def merge_heads(x):
    b, h, n, d = x.shape
    return x.transpose(1, 2).reshape(b, n, h * d)


def main():
    ex = merge_heads(torch.randn(2, 4, 5, 8))
    traced = torch.jit.trace(OutProj().eval(), ex)
    assert traced(ex).shape == (2, 5, 8)


if __name__ == "__main__":
    main()
