"""trace_module of a sequence head with a (batch, dim, time) example transposed to time-major."""
import torch
import torch.nn as nn


class Head(nn.Module):
    def __init__(self):
        super().__init__()
        self.proj = nn.Linear(16, 4)

    def forward(self, x):
        return self.proj(x)


def frames(feats):
    return feats.transpose(1, 2)


def main():
    head = Head().eval()
    ex = frames(torch.randn(2, 16, 10))
    traced = torch.jit.trace_module(head, {"forward": ex})  # hazard: CTG105
    assert traced(torch.randn(2, 10, 16)).shape == (2, 10, 4)


if __name__ == "__main__":
    main()
