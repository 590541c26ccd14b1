import torch
from torch import nn


class ViTTokens(nn.Module):
    def __init__(self, dim=8, n_patches=4):
        super().__init__()
        self.cls_token = nn.Parameter(torch.zeros(1, 1, dim))
        self.embed = nn.Linear(12, dim)

    def forward(self, patches):
        x = self.embed(patches)
        cls = self.cls_token.expand(x.shape[0], -1, -1)
        return torch.cat([cls, x], dim=1)


def split_tokens(x):
    return x[:, 0], x[:, 1:]


def dense_targets_loss(tokens, targets):
    cls_tok, patch_tok = split_tokens(tokens)
    D = patch_tok.shape[-1]
    flat = patch_tok.view(-1, D)  # hazard: CTG101
    return ((flat - targets) ** 2).mean()


def main():
    tok = ViTTokens()(torch.randn(2, 4, 12))
    dense_targets_loss(tok, torch.randn(8, 8))
