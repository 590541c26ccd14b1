import torch
from torch import nn


def flatten_tokens(x):
    b, n, d = x.shape
    return x.view(b * n, d)  # hazard: CTG101


class ConvTokenizer(nn.Module):
    def __init__(self, in_ch, dim):
        super().__init__()
        self.conv = nn.Conv2d(in_ch, dim, 4, stride=4)
        self.norm = nn.LayerNorm(dim)

    def forward(self, img):
        feats = self.conv(img)
        b, d, h, w = feats.shape
        tokens = feats.flatten(2).permute(0, 2, 1)
        return self.norm(flatten_tokens(tokens)).view(b, h * w, d)


def main():
    tok = ConvTokenizer(3, 16)
    print(tok(torch.randn(2, 3, 16, 16)).shape)
