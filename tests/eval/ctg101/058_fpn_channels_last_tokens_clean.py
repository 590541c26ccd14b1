import torch
from torch import nn


class FPNTokens(nn.Module):
    def __init__(self, ch=8):
        super().__init__()
        self.lateral = nn.ModuleList(nn.Conv2d(ch, ch, 1) for _ in range(2))

    def forward(self, feats):
        outs = []
        for conv, f in zip(self.lateral, feats):
            y = conv(f)
            B, C = y.shape[:2]
            outs.append(y.view(B, C, -1))
        return torch.cat(outs, dim=2)


def main():
    model = FPNTokens().to(memory_format=torch.channels_last)
    feats = [torch.randn(2, 8, 8, 8), torch.randn(2, 8, 4, 4)]
    feats = [f.contiguous(memory_format=torch.channels_last) for f in feats]
    model(feats)
