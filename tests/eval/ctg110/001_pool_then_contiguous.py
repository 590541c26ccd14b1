"""Stem in channels_last, followed by a stray `.contiguous()` after pooling."""
import torch
import torch.nn.functional as F


def stem(images):
    x = images.contiguous(memory_format=torch.channels_last)
    y = F.max_pool2d(F.relu(x), 2)
    y = y.contiguous()  # hazard: CTG110
    return y


def main():
    assert stem(torch.randn(2, 3, 8, 8)).shape == (2, 3, 4, 4)


if __name__ == "__main__":
    main()
