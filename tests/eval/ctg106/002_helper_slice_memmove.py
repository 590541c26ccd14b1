"""Staging buffer filled with memmove from a cropped feature map produced by a helper."""
import ctypes

import torch


def crop_channels(feat, k):
    return feat[:, 1:k + 1]


def stage(feat, k, staging):
    src = crop_channels(feat, k)
    nbytes = src.numel() * src.element_size()
    ctypes.memmove(staging.data_ptr(), src.data_ptr(), nbytes)  # hazard: CTG106
    return staging


def main():
    feat = torch.randn(2, 8, 4, 4)
    out = stage(feat, 3, torch.empty(2, 3, 4, 4))
    assert out.shape == (2, 3, 4, 4)


if __name__ == "__main__":
    main()
