"""Sliding windows over a 1-D signal built with as_strided, reset with fill_."""
import torch


def windows(sig, size):
    n = sig.numel() - size + 1
    return sig.as_strided((n, size), (1, 1))


def clear_windows(sig, size):
    w = windows(sig, size)
    w.fill_(0.0)  # hazard: CTG108
    return sig


def main():
    s = clear_windows(torch.arange(10.0), 3)
    assert s.sum() == 0


if __name__ == "__main__":
    main()
