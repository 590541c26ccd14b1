"""Rotary embedding helper checks the last stride before pairing channels; traced."""
import torch


def rotate_half(x):
    if x.stride(-1) != 1:  # hazard: CTG105
        x = x.contiguous()
    a, b = x.chunk(2, dim=-1)
    return torch.cat([-b, a], dim=-1)


def apply_rope(x, cos, sin):
    return x * cos + rotate_half(x) * sin


def main():
    x = torch.randn(2, 6, 8)
    cos, sin = torch.randn(6, 8), torch.randn(6, 8)
    traced = torch.jit.trace(rotate_half, x)
    assert traced(x).shape == x.shape and apply_rope(x, cos, sin).shape == x.shape


if __name__ == "__main__":
    main()
