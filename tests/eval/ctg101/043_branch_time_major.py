import torch
from torch import nn


class Encoder(nn.Module):
    def __init__(self, d=8, time_major=False):
        super().__init__()
        self.time_major = time_major
        self.lin = nn.Linear(d, d)

    def forward(self, x):
        h = torch.tanh(self.lin(x))
        if self.time_major:
            h = h.transpose(0, 1)
        return h


def frame_embeddings(enc, x):
    h = enc(x)
    return h.view(-1, h.size(-1))  # hazard: CTG101


def main():
    frame_embeddings(Encoder(time_major=False), torch.randn(2, 5, 8))
    frame_embeddings(Encoder(time_major=True), torch.randn(2, 5, 8))
