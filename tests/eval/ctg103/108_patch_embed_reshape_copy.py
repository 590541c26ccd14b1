"""Patch embedding weight built with a copying reshape of a permuted checkpoint tensor."""
import torch
import torch.nn as nn
import torch.nn.functional as F


class PatchEmbed(nn.Module):
    def __init__(self, linear_weight, in_ch, patch):
        super().__init__()
        self.patch = patch
        self.weight = nn.Parameter(self._to_conv_weight(linear_weight, in_ch))

    def _to_conv_weight(self, w, in_ch):
        dim = w.shape[0]
        w = w.reshape(dim, self.patch, self.patch, in_ch).permute(0, 3, 1, 2)
        return w.reshape(dim, in_ch * self.patch * self.patch).reshape(dim, in_ch, self.patch, self.patch)

    def forward(self, x):
        return F.conv2d(x, self.weight, stride=self.patch)


def main():
    m = PatchEmbed(torch.randn(16, 4 * 4 * 3), 3, 4)
    assert m.weight.is_contiguous()


if __name__ == "__main__":
    main()
