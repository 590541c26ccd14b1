import torch
from torch import nn


class ChannelsLastTokens(nn.Module):
    def __init__(self, channels, dim):
        super().__init__()
        self.conv = nn.Conv2d(3, channels, 3, padding=1)
        self.proj = nn.Linear(channels, dim)

    def forward(self, img):
        feats = torch.relu(self.conv(img))
        feats = feats.moveaxis(1, -1)
        b, h, w, c = feats.shape
        tokens = feats.view(b, h * w, c)
        return self.proj(tokens)


def main():
    model = ChannelsLastTokens(8, 16)
    print(model(torch.randn(2, 3, 6, 6)).shape)
