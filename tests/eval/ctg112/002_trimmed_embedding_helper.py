"""Vocabulary pruning: the helper trims the embedding table, the caller checkpoints it."""
import io

import torch
import torch.nn as nn


def trimmed_table(emb, keep):
    return emb.weight.detach()[:keep]


def save_pruned(emb, keep, f):
    torch.save(trimmed_table(emb, keep), f)  # hazard: CTG112


def main():
    save_pruned(nn.Embedding(5000, 16), 100, io.BytesIO())


if __name__ == "__main__":
    main()
