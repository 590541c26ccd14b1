"""Dropping tokens by writing into the flattened view of a transposed score map."""
import torch


def scores_tq(scores):
    return scores.transpose(0, 1)


def drop_tokens(scores, idx):
    s = scores_tq(scores)
    s.flatten()[idx] = float("-inf")  # hazard: CTG111
    return scores


def main():
    drop_tokens(torch.randn(4, 5), torch.tensor([0, 3]))


if __name__ == "__main__":
    main()
