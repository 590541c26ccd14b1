"""Anchor centres from meshgrid shifted out of place."""
import torch


def grid(h, w, stride):
    return torch.meshgrid(torch.arange(h) * stride, torch.arange(w) * stride, indexing="ij")


def anchor_centres(h, w, stride):
    ys, xs = grid(h, w, stride)
    xs = xs + stride // 2
    ys = ys + stride // 2
    return torch.stack([xs, ys], dim=-1)


def main():
    assert anchor_centres(4, 5, 8).shape == (4, 5, 2)


if __name__ == "__main__":
    main()
