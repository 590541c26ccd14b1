import torch
from torch import nn


class MaskedFrames(nn.Module):
    def __init__(self, in_ch, dim):
        super().__init__()
        self.conv = nn.Conv1d(in_ch, dim, 3, padding=1)

    def forward(self, x, lengths):
        feats = self.conv(x).transpose(1, 2).contiguous()
        b, t, d = feats.shape
        mask = (torch.arange(t)[None, :] < lengths[:, None]).float().unsqueeze(-1)
        return (mask * feats).view(b * t, d)


def main():
    print(MaskedFrames(3, 6)(torch.randn(2, 3, 9), torch.tensor([9, 4])).shape)
