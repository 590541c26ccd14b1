import torch


def to_nchw(img_nhwc):
    return img_nhwc.movedim(-1, 1)


def spatial_tokens(x):
    B, C, H, W = x.shape
    return x.view(B, C, H * W)


def main():
    t = spatial_tokens(to_nchw(torch.rand(2, 5, 5, 3)))
    assert t.shape == (2, 3, 25)
