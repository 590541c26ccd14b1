"""Attention bias filled out of place (masked_fill returns a new tensor)."""
import torch


def broadcast_bias(bias, batch, queries):
    return bias[:, None, :].expand(batch, queries, -1)


def attention_bias(pad, queries):
    bias = torch.zeros(pad.shape[0], pad.shape[1])
    full = broadcast_bias(bias, pad.shape[0], queries)
    full = full.masked_fill(pad[:, None, :], float("-inf"))
    return full


def main():
    pad = torch.zeros(2, 5, dtype=torch.bool)
    pad[:, -1] = True
    assert attention_bias(pad, 4).shape == (2, 4, 5)


if __name__ == "__main__":
    main()
