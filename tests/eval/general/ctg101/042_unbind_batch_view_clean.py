import torch
from torch import nn


class FrameWiseNorm(nn.Module):
    def __init__(self, channels):
        super().__init__()
        self.gamma = nn.Parameter(torch.ones(channels, 1))

    def forward(self, video):
        b, t, c, h, w = video.shape
        outs = []
        for clip in video.unbind(dim=0):
            planes = clip.view(t * c, h * w)
            planes = (planes - planes.mean(-1, keepdim=True)) / (planes.std(-1, keepdim=True) + 1e-5)
            outs.append(planes.view(t, c, h * w) * self.gamma)
        return torch.stack(outs, dim=0).view(b, t, c, h, w)


def main():
    norm = FrameWiseNorm(3)
    print(norm(torch.randn(2, 4, 3, 8, 8)).shape)
