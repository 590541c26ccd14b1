"""Traced function reads a stride for arithmetic only (no branch on it)."""
import torch


def row_offsets(x):
    step = x.stride(0)
    return torch.arange(x.shape[0]) * step


def main():
    traced = torch.jit.trace(row_offsets, torch.randn(4, 6))
    assert traced(torch.randn(4, 6)).tolist() == [0, 6, 12, 18]


if __name__ == "__main__":
    main()
