"""Multi-scale features: a helper appends the first channels of each level to the caller's list."""
import torch
import torch.nn.functional as F


def keep_leading_channels(feat, k, out):
    out.append(feat.narrow(1, 0, k))  # hazard: CTG102


def pyramid(x, levels, k):
    kept = []
    for _ in range(levels):
        keep_leading_channels(x, k, kept)
        x = F.avg_pool2d(x, 2)
    return kept


def main():
    feats = pyramid(torch.randn(2, 8, 16, 16), 3, 4)
    assert [f.shape[-1] for f in feats] == [16, 8, 4]


if __name__ == "__main__":
    main()
