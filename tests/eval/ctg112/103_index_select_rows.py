"""Vocabulary pruning with index_select (a fresh tensor holding only the kept rows)."""
import io

import torch
import torch.nn as nn


def kept_rows(emb, keep_ids):
    return emb.weight.detach().index_select(0, keep_ids)


def main():
    table = kept_rows(nn.Embedding(5000, 16), torch.arange(100))
    torch.save(table, io.BytesIO())


if __name__ == "__main__":
    main()
