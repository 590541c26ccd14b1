import torch
import torch.nn.functional as F
from torch import nn


def pad_to_multiple(x, multiple):
    t = x.size(1)
    extra = (-t) % multiple
    return F.pad(x.transpose(1, 2), (0, extra)).transpose(1, 2).contiguous()


class ChunkedEncoder(nn.Module):
    def __init__(self, dim, chunk):
        super().__init__()
        self.chunk = chunk
        self.proj = nn.Linear(chunk * dim, dim)

    def forward(self, x):
        x = pad_to_multiple(x, self.chunk)
        b, t, d = x.shape
        chunks = x.view(b, t // self.chunk, self.chunk * d)
        return self.proj(chunks)


def main():
    enc = ChunkedEncoder(6, 4)
    print(enc(torch.randn(2, 10, 6)).shape)
