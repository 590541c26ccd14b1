import torch
from torch import nn


class ScoreExporter(nn.Module):
    def __init__(self, dim, classes):
        super().__init__()
        self.head = nn.Linear(dim, classes)

    def forward(self, x):
        return self.head(x)

    @torch.no_grad()
    def class_major_scores(self, x):
        scores = self.forward(x).t()
        scores = scores.float()
        return scores.view(-1)  # hazard: CTG101


def main():
    exp = ScoreExporter(8, 3)
    print(exp.class_major_scores(torch.randn(5, 8)).shape)
