import torch
from torch import nn


class MixedPrecisionHead(nn.Module):
    def __init__(self, dim, classes, compute_dtype=torch.float32):
        super().__init__()
        self.compute_dtype = compute_dtype
        self.proj = nn.Linear(dim, classes)

    def forward(self, x):
        logits = self.proj(x).transpose(0, 1)
        logits = logits.to(dtype=self.compute_dtype)
        return logits.view(-1)  # hazard: CTG101


def main():
    head = MixedPrecisionHead(8, 4)
    print(head(torch.randn(5, 8)).shape)
