"""Preprocessing helper keeps NCHW; the caller's `.contiguous()` after an activation is free."""
import torch
import torch.nn.functional as F


def normalise(x):
    return (x - 0.5) / 0.25


def preprocess(images):
    y = F.gelu(normalise(images))
    return y.contiguous()


def main():
    assert preprocess(torch.rand(2, 3, 8, 8)).shape == (2, 3, 8, 8)


if __name__ == "__main__":
    main()
