"""Retrieval index: embeddings come back to the host dimension-major."""
import torch
import torch.nn as nn


class Encoder(nn.Module):
    def __init__(self):
        super().__init__()
        self.proj = nn.Linear(12, 6)

    def forward(self, x):
        return self.proj(x)


def export_index(encoder, docs):
    emb = encoder(docs)
    index = emb.t().cpu()  # hazard: CTG104
    return index


def main():
    index = export_index(Encoder(), torch.randn(10, 12))
    assert index.shape == (6, 10)


if __name__ == "__main__":
    main()
