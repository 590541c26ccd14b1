"""Padding mask broadcast over heads, then moved: the copy is densified row-major."""
import torch


def head_mask(pad, heads, device):
    m = pad[:, None, :].expand(-1, heads, -1).to(device)
    return m


def main():
    m = head_mask(torch.rand(2, 7) > 0.5, 4, "cpu")
    assert m.shape == (2, 4, 7)


if __name__ == "__main__":
    main()
