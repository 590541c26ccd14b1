"""ViT: class token written into a materialised copy of the expanded positional embedding."""
import torch
import torch.nn as nn


class ViTEmbed(nn.Module):
    def __init__(self, n, dim):
        super().__init__()
        self.pos_embed = nn.Parameter(torch.zeros(1, n + 1, dim))
        self.cls = nn.Parameter(torch.randn(1, dim))

    @torch.no_grad()
    def positions(self, batch):
        pos = self.pos_embed.expand(batch, -1, -1).clone()
        pos[:, 0] = self.cls
        return pos


def main():
    assert ViTEmbed(4, 8).positions(3).shape == (3, 5, 8)


if __name__ == "__main__":
    main()
