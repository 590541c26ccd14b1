"""Detection anchors: grid centres from meshgrid shifted in place."""
import torch


def grid(h, w, stride):
    ys, xs = torch.meshgrid(torch.arange(h) * stride, torch.arange(w) * stride, indexing="ij")
    return ys.float(), xs


def anchor_centres(h, w, stride):
    ys, xs = grid(h, w, stride)
    xs.add_(stride // 2)  # hazard: CTG108
    return torch.stack([xs, ys], dim=-1)


def main():
    try:
        anchor_centres(4, 5, 8)
    except RuntimeError:
        pass


if __name__ == "__main__":
    main()
