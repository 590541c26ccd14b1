"""Heads merged with a copying reshape before the move."""
import torch


def merge_heads(x, device):
    b, h, n, d = x.shape
    merged = x.transpose(1, 2).reshape(b, n, h * d).to(device)
    return merged


def main():
    y = merge_heads(torch.randn(2, 4, 5, 8), "cpu")
    assert y.is_contiguous() and y.shape == (2, 5, 32)


if __name__ == "__main__":
    main()
