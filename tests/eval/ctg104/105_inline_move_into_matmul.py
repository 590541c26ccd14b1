"""Transposed projection moved and consumed in the same expression (not kept)."""
import torch


def project(a, w):
    return a @ w.t().to(a.device)


def main():
    out = project(torch.randn(3, 8), torch.randn(5, 8))
    assert out.shape == (3, 5)


if __name__ == "__main__":
    main()
