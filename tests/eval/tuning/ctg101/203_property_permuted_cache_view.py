import torch
from torch import nn


class TokenCache(nn.Module):
    def __init__(self, batch, dim, length):
        super().__init__()
        self.register_buffer("cache", torch.zeros(batch, dim, length))

    @property
    def tokens(self):
        return self.cache.permute(0, 2, 1)

    def flat_tokens(self):
        b, t, d = self.tokens.shape
        return self.tokens.view(b * t, d)  # hazard: CTG101


def main():
    print(TokenCache(2, 4, 6).flat_tokens().shape)
