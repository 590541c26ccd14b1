import torch
from torch import nn


class ViTTokens(nn.Module):
    def __init__(self, dim=8):
        super().__init__()
        self.cls_token = nn.Parameter(torch.zeros(1, 1, dim))
        self.embed = nn.Linear(12, dim)

    def forward(self, patches):
        x = self.embed(patches)
        return torch.cat([self.cls_token.expand(x.shape[0], -1, -1), x], dim=1)


def tokens_to_grid(tokens, h, w):
    patch_tok = tokens[:, 1:]
    B, N, D = patch_tok.shape
    return patch_tok.view(B, h, w, D).permute(0, 3, 1, 2)


def main():
    grid = tokens_to_grid(ViTTokens()(torch.randn(2, 4, 12)), 2, 2)
    assert grid.shape == (2, 8, 2, 2)
