"""Per-head slices gathered in a local list and concatenated (cat copies)."""
import torch


def reorder_heads(x, num_heads, order):
    d = x.shape[-1] // num_heads
    parts = []
    for h in order:
        parts.append(x[..., h * d:(h + 1) * d])
    return torch.cat(parts, dim=-1)


def main():
    y = reorder_heads(torch.randn(2, 3, 16), 4, [3, 2, 1, 0])
    assert y.is_contiguous() and y.shape == (2, 3, 16)


if __name__ == "__main__":
    main()
