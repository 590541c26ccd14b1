"""Swin relative position index: the permuted coordinates are reduced before registering."""
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
        rel = relative_coords(ws) + (ws - 1)
        scale = torch.tensor([2 * ws - 1, 1])
        self.register_buffer("rel_index", (rel * scale).sum(-1))

    def bias(self):
        return self.table[self.rel_index.reshape(-1)]


def main():
    m = WindowAttention(4, 2)
    assert m.rel_index.is_contiguous() and m.bias().shape == (256, 2)


if __name__ == "__main__":
    main()
