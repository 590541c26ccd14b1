"""Classifier traced with a row-major copy of the NHWC example batch."""
import torch
import torch.nn as nn


class Classifier(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(3, 5)

    def forward(self, x):
        return self.fc(x.mean(dim=(1, 2)))


def example_batch():
    return torch.randn(2, 3, 8, 8).permute(0, 2, 3, 1).contiguous()


def main():
    traced = torch.jit.trace(Classifier().eval(), example_batch())
    assert traced(torch.randn(2, 8, 8, 3)).shape == (2, 5)


if __name__ == "__main__":
    main()
