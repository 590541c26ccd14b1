"""Masked patch modelling: token mask applied to a reshape of the NHWC view (a copy)."""
import torch


def nhwc(x):
    return x.permute(0, 2, 3, 1)


def mask_patches(x, keep):
    b = x.shape[0]
    nhwc(x).reshape(b, -1).mul_(keep)  # hazard: CTG111
    return x


def main():
    x = torch.randn(2, 3, 4, 4)
    mask_patches(x, torch.ones(2, 48))


if __name__ == "__main__":
    main()
