"""Example built by concatenating transposed chunks (cat returns a fresh row-major tensor)."""
import torch
import torch.nn as nn


def main():
    a, b = torch.randn(8, 3), torch.randn(8, 5)
    ex = torch.cat([a.t(), b.t()], dim=0)
    model = nn.Linear(8, 2).eval()
    traced = torch.jit.trace(model, ex)
    assert traced(ex).shape == (8, 2)


if __name__ == "__main__":
    main()
