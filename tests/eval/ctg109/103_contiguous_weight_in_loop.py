"""`.contiguous()` in a loop on a weight that is already row-major (a free no-op)."""
import torch
import torch.nn as nn


def run(blocks, head, x):
    for b in blocks:
        x = torch.relu(b(x)) @ head.weight.contiguous().t()
    return x


def main():
    with torch.no_grad():
        blocks = [nn.Linear(8, 8) for _ in range(3)]
        assert run(blocks, nn.Linear(8, 8), torch.randn(2, 8)).shape == (2, 8)


if __name__ == "__main__":
    main()
