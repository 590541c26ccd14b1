"""Dropping tokens through the flattened view of a row-major score map (a view)."""
import torch


def fresh_scores(n, m):
    return torch.randn(n, m)


def drop_tokens(idx):
    s = fresh_scores(4, 5)
    s.flatten()[idx] = float("-inf")
    return s


def main():
    assert torch.isinf(drop_tokens(torch.tensor([0, 3]))).sum() == 2


if __name__ == "__main__":
    main()
