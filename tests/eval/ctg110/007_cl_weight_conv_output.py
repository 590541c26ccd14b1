"""A conv whose weight alone is channels_last yields channels_last output, then `.contiguous()`."""
import torch
import torch.nn.functional as F


def make_weight(cin, cout):
    return (torch.randn(cout, cin, 3, 3) * 0.1).contiguous(memory_format=torch.channels_last)


def conv_block(x, w):
    y = F.conv2d(x, w, padding=1)
    return F.silu(y).contiguous()  # hazard: CTG110


def main():
    y = conv_block(torch.randn(1, 4, 8, 8), make_weight(4, 6))
    assert y.shape == (1, 6, 8, 8)


if __name__ == "__main__":
    main()
