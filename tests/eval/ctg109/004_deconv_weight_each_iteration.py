"""Iterative refinement with a transposed-conv implemented via conv2d on the swapped weight."""
import torch
import torch.nn.functional as F


def swapped(weight):
    return weight.permute(1, 0, 2, 3)


def refine(x, weight, iters):
    w = swapped(weight)
    for _ in range(iters):
        x = x + 0.1 * F.conv2d(x, w.contiguous(), padding=1)  # hazard: CTG109
    return x


def main():
    out = refine(torch.randn(1, 4, 8, 8), torch.randn(4, 4, 3, 3), 3)
    assert out.shape == (1, 4, 8, 8)


if __name__ == "__main__":
    main()
