import torch
from torch import nn


class ALiBiBias(nn.Module):
    def __init__(self, heads):
        super().__init__()
        self.register_buffer("slopes", 2.0 ** (-torch.arange(1, heads + 1).float()))

    def forward(self, pad_mask):
        b, t = pad_mask.shape
        dist = (torch.arange(t)[None, :] - torch.arange(t)[:, None]).abs().float()
        bias = -self.slopes[:, None, None] * dist
        bias = bias.unsqueeze(0).expand(b, -1, -1, -1)
        bias = bias.masked_fill(pad_mask[:, None, None, :], float("-inf"))
        return bias


def main():
    alibi = ALiBiBias(4)
    pad = torch.zeros(2, 5, dtype=torch.bool)
    pad[1, 3:] = True
    print(alibi(pad).shape)
