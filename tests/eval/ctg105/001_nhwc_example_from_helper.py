"""Exporting a classifier with an example batch produced by the NHWC data loader."""
import torch
import torch.nn as nn


class Classifier(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(3, 5)

    def forward(self, x):  # x: (batch, h, w, c)
        return self.fc(x.mean(dim=(1, 2)))


def example_batch():
    imgs = torch.randn(2, 3, 8, 8)
    return imgs.permute(0, 2, 3, 1)


def export(model):
    example = example_batch()
    return torch.jit.trace(model, example)  # hazard: CTG105


def main():
    traced = export(Classifier().eval())
    assert traced(torch.randn(2, 8, 8, 3)).shape == (2, 5)


if __name__ == "__main__":
    main()
