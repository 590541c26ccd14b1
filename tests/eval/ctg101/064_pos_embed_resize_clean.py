import torch
import torch.nn.functional as F
from torch import nn


def resize_pos_embed(pos, old_hw, new_hw):
    cls_pos, grid = pos[:, :1], pos[:, 1:]
    C = grid.shape[-1]
    grid = grid.view(1, old_hw[0], old_hw[1], C).permute(0, 3, 1, 2)
    grid = F.interpolate(grid, size=new_hw, mode="bilinear", align_corners=False)
    grid = grid.permute(0, 2, 3, 1).view(1, new_hw[0] * new_hw[1], C)
    return torch.cat([cls_pos, grid], dim=1)


class ViT(nn.Module):
    def __init__(self):
        super().__init__()
        self.pos_embed = nn.Parameter(torch.randn(1, 1 + 4 * 4, 8))

    def adapt(self, new_hw):
        with torch.no_grad():
            self.pos_embed = nn.Parameter(resize_pos_embed(self.pos_embed, (4, 4), new_hw))


def main():
    ViT().adapt((6, 6))
