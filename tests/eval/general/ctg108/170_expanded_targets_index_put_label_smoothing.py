import torch
from torch import nn


class SmoothedCrossEntropy(nn.Module):
    def __init__(self, classes, smoothing=0.1):
        super().__init__()
        self.classes = classes
        self.smoothing = smoothing

    def targets(self, labels):
        b = labels.size(0)
        off = self.smoothing / (self.classes - 1)
        dist = torch.full((1, self.classes), off).expand(b, -1)
        dist[torch.arange(b), labels] = 1.0 - self.smoothing  # hazard: CTG108
        return dist

    def forward(self, logits, labels):
        return -(self.targets(labels) * torch.log_softmax(logits, -1)).sum(-1).mean()


def main():
    loss = SmoothedCrossEntropy(5)
    print(loss(torch.randn(4, 5), torch.tensor([0, 3, 1, 4])))
