"""Legacy exporter walks the typed storage of a narrowed embedding table."""
import torch
import torch.nn as nn


def vocab_slice(emb, n):
    return emb.weight.detach().narrow(1, 0, n)


def dump(emb):
    table = vocab_slice(emb, 4)
    st = table.storage()  # hazard: CTG106
    return [st[i] for i in range(table.numel())]


def main():
    vals = dump(nn.Embedding(10, 8))
    assert len(vals) == 40


if __name__ == "__main__":
    main()
