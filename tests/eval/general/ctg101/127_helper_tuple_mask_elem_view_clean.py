import torch
from torch import nn


def encode_with_lengths(encoder, x, lengths):
    out = encoder(x.transpose(1, 2)).transpose(1, 2)
    mask = torch.arange(out.size(1))[None, :] < lengths[:, None]
    return out, mask


class Tagger(nn.Module):
    def __init__(self, dim, tags):
        super().__init__()
        self.encoder = nn.Conv1d(dim, dim, 3, padding=1)
        self.tags = nn.Linear(dim, tags)

    def forward(self, x, lengths):
        out, mask = encode_with_lengths(self.encoder, x, lengths)
        b, t, d = out.shape
        flat = out.reshape(b * t, d)
        keep = mask.view(-1)
        return self.tags(flat[keep])


def main():
    tagger = Tagger(6, 4)
    print(tagger(torch.randn(2, 7, 6), torch.tensor([7, 3])).shape)
