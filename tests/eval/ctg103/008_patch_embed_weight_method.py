"""Patch embedding whose weight comes from a linear-layer checkpoint reshaped per patch."""
import torch
import torch.nn as nn
import torch.nn.functional as F


class PatchEmbed(nn.Module):
    def __init__(self, linear_weight, in_ch, patch):
        super().__init__()
        self.patch = patch
        self.weight = nn.Parameter(self._to_conv_weight(linear_weight, in_ch))  # hazard: CTG103

    def _to_conv_weight(self, w, in_ch):
        # TF dense kernel is (in_features, dim): make it (dim, c, p, p)
        dim = w.shape[1]
        return w.t().reshape(dim, in_ch, self.patch, self.patch)

    def forward(self, x):
        return F.conv2d(x, self.weight, stride=self.patch)


def main():
    m = PatchEmbed(torch.randn(4 * 4 * 3, 16), 3, 4)
    assert m(torch.randn(1, 3, 16, 16)).shape == (1, 16, 4, 4)


if __name__ == "__main__":
    main()
