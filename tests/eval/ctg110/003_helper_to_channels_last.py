"""Preprocessing helper returns channels_last; the caller undoes it after an activation."""
import torch
import torch.nn.functional as F


def to_cl(x):
    return x.to(memory_format=torch.channels_last)


def preprocess(images):
    y = F.gelu(to_cl(images) * 2.0 - 1.0)
    return y.contiguous()  # hazard: CTG110


def main():
    assert preprocess(torch.rand(2, 3, 8, 8)).shape == (2, 3, 8, 8)


if __name__ == "__main__":
    main()
