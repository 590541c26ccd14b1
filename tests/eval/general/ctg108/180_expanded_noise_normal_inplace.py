import torch
from torch import nn


class NoisyTokens(nn.Module):
    def __init__(self, dim, sigma=0.1):
        super().__init__()
        self.dim = dim
        self.sigma = sigma

    def forward(self, x):
        b, t, d = x.shape
        if not self.training:
            return x
        noise = torch.empty(b, 1, d).expand(b, t, d)
        noise.normal_(0.0, self.sigma)  # hazard: CTG108
        return x + noise


def main():
    layer = NoisyTokens(8)
    layer.train()
    print(layer(torch.randn(2, 5, 8)).shape)
