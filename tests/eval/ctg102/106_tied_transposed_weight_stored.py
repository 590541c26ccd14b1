"""Output head keeps a transposed (full, not partial) view of the embedding."""
import torch
import torch.nn as nn


class TiedHead(nn.Module):
    def __init__(self, emb):
        super().__init__()
        self.emb = emb
        self.proj_t = None

    def refresh(self):
        self.proj_t = self.emb.weight.detach().t()

    def forward(self, h):
        return h @ self.proj_t


def main():
    head = TiedHead(nn.Embedding(20, 8))
    head.refresh()
    assert head(torch.randn(3, 8)).shape == (3, 20)


if __name__ == "__main__":
    main()
