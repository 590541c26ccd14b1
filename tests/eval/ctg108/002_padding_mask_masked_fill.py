"""Attention bias from a key padding mask broadcast in a helper, then filled in place."""
import torch


def broadcast_bias(bias, batch, queries):
    return bias[:, None, :].expand(batch, queries, -1)


def attention_bias(pad, queries):
    bias = torch.zeros(pad.shape[0], pad.shape[1])
    full = broadcast_bias(bias, pad.shape[0], queries)
    full.masked_fill_(pad[:, None, :], float("-inf"))  # hazard: CTG108
    return full


def main():
    pad = torch.zeros(2, 5, dtype=torch.bool)
    pad[:, -1] = True
    b = attention_bias(pad, 4)
    assert b.shape == (2, 4, 5)


if __name__ == "__main__":
    main()
