"""Tracing a scaled dot-product kernel with pre-transposed keys in the example tuple."""
import torch


def scores(q, kt):
    return (q @ kt).softmax(-1)


def main():
    q = torch.randn(2, 4, 6, 8)
    k = torch.randn(2, 4, 6, 8)
    traced = torch.jit.trace(scores, (q, k.transpose(-2, -1)))  # hazard: CTG105
    assert traced(q, k.transpose(-2, -1)).shape == (2, 4, 6, 6)


if __name__ == "__main__":
    main()
