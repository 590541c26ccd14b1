"""Tracing a text encoder with one prompt broadcast over the batch as the example."""
import torch
import torch.nn as nn


class TextEncoder(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(16, 16)

    def forward(self, emb):
        return self.fc(emb).tanh()


def batch_prompt(emb, n):
    return emb.unsqueeze(0).expand(n, -1, -1)


def main():
    enc = TextEncoder().eval()
    example = batch_prompt(torch.randn(7, 16), 4)
    traced = torch.jit.trace(enc, example)  # hazard: CTG105
    assert traced(torch.randn(4, 7, 16)).shape == (4, 7, 16)


if __name__ == "__main__":
    main()
