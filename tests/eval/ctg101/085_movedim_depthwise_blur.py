import torch
import torch.nn.functional as F


def to_nchw(img_nhwc):
    return img_nhwc.movedim(-1, 1)


def blur_per_channel(x, kernel):
    B, C, H, W = x.shape
    planes = x.view(B * C, 1, H, W)  # hazard: CTG101
    out = F.conv2d(planes, kernel, padding=1)
    return out.view(B, C, H, W)


def main():
    k = torch.full((1, 1, 3, 3), 1 / 9)
    blur_per_channel(to_nchw(torch.rand(2, 5, 5, 3)), k)
