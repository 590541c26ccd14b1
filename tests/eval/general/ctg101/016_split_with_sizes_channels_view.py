import torch
from torch import nn


class PartialGroupNorm(nn.Module):
    """Normalises the first `norm_channels` channels per sample, passes the rest."""

    def __init__(self, channels, norm_channels, eps=1e-5):
        super().__init__()
        self.sizes = [norm_channels, channels - norm_channels]
        self.eps = eps

    def forward(self, x):
        b, c, h, w = x.shape
        normed, identity = x.split_with_sizes(self.sizes, dim=1)
        flat = normed.view(b * self.sizes[0], -1)  # hazard: CTG101
        mean = flat.mean(-1, keepdim=True)
        var = flat.var(-1, keepdim=True, unbiased=False)
        flat = (flat - mean) / torch.sqrt(var + self.eps)
        return torch.cat([flat.view(b, self.sizes[0], h, w), identity], dim=1)


def main():
    norm = PartialGroupNorm(16, 8)
    x = torch.randn(2, 16, 8, 8)
    print(norm(x).shape)
