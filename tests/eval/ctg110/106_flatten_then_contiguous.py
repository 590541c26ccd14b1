"""Classifier head: channels_last map flattened (a copy) before `.contiguous()`."""
import torch
import torch.nn.functional as F


def head(feat, w):
    flat = feat.flatten(1)
    return F.linear(flat.contiguous(), w)


def main():
    f = torch.randn(2, 4, 3, 3).contiguous(memory_format=torch.channels_last)
    assert head(f, torch.randn(5, 36)).shape == (2, 5)


if __name__ == "__main__":
    main()
