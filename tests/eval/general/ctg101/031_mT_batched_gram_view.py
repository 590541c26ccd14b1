import torch
from torch import nn


class GramFeatures(nn.Module):
    def __init__(self, channels, out_dim):
        super().__init__()
        self.fc = nn.Linear(channels * channels, out_dim)

    def forward(self, feats):
        b, c, n = feats.shape
        ft = feats.mT
        gram = feats @ ft / n
        ft_flat = ft.view(b, -1)  # hazard: CTG101
        return self.fc(gram.view(b, -1)), ft_flat


def main():
    model = GramFeatures(4, 10)
    out, ft = model(torch.randn(3, 4, 16))
    print(out.shape, ft.shape)
