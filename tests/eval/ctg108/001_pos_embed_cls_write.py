"""ViT: class token written into the batch-expanded positional embedding."""
import torch
import torch.nn as nn


class ViTEmbed(nn.Module):
    def __init__(self, n, dim):
        super().__init__()
        self.pos_embed = nn.Parameter(torch.zeros(1, n + 1, dim))
        self.cls = nn.Parameter(torch.randn(1, dim))

    @torch.no_grad()
    def positions(self, batch):
        pos = self.pos_embed.expand(batch, -1, -1)
        pos[:, 0] = self.cls  # hazard: CTG108
        return pos


def main():
    m = ViTEmbed(4, 8)
    pos = m.positions(3)
    assert pos.shape == (3, 5, 8)


if __name__ == "__main__":
    main()
