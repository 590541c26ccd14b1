"""Expanded mask made contiguous (a copy) in a helper before it is filled in place."""
import torch


def per_query_mask(pad, queries):
    return pad[:, None, :].expand(-1, queries, -1).contiguous()


def causal_and_padding(pad, queries):
    m = per_query_mask(pad, queries)
    m.logical_or_(torch.ones(queries, pad.shape[1], dtype=torch.bool).triu(1))
    return m


def main():
    m = causal_and_padding(torch.zeros(2, 5, dtype=torch.bool), 5)
    assert m.shape == (2, 5, 5)


if __name__ == "__main__":
    main()
