"""Swin-style window attention registers the relative coordinates of a window."""
import torch
import torch.nn as nn


def relative_coords(ws):
    coords = torch.stack(torch.meshgrid(torch.arange(ws), torch.arange(ws), indexing="ij"))
    flat = torch.flatten(coords, 1)
    rel = flat[:, :, None] - flat[:, None, :]
    return rel.permute(1, 2, 0)


class WindowAttention(nn.Module):
    def __init__(self, ws, heads):
        super().__init__()
        self.table = nn.Parameter(torch.zeros((2 * ws - 1) ** 2, heads))
        rel = relative_coords(ws)
        self.register_buffer("rel_coords", rel)  # hazard: CTG103
        self.ws = ws

    def bias(self):
        rel = self.rel_coords + (self.ws - 1)
        idx = rel[..., 0] * (2 * self.ws - 1) + rel[..., 1]
        return self.table[idx.reshape(-1)]


def main():
    m = WindowAttention(4, 2)
    assert m.bias().shape == (256, 2)


if __name__ == "__main__":
    main()
