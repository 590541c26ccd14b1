import torch
from torch import nn


class MaskedSelfAttention(nn.Module):
    def __init__(self, dim, heads):
        super().__init__()
        self.heads = heads
        self.qkv = nn.Linear(dim, 3 * dim)

    def forward(self, x, pad_mask):
        b, t, d = x.shape
        hd = d // self.heads
        q, k, v = self.qkv(x).view(b, t, 3, self.heads, hd).permute(2, 0, 3, 1, 4)
        q, k, v = (z.reshape(b * self.heads, t, hd) for z in (q, k, v))
        mask = pad_mask[:, None, None, :].expand(b, self.heads, t, t)
        mask = mask.view(b * self.heads, t, t)  # hazard: CTG101
        scores = (q @ k.transpose(1, 2)).masked_fill(mask, float("-inf"))
        return torch.softmax(scores, -1) @ v


def main():
    attn = MaskedSelfAttention(32, 4)
    x = torch.randn(2, 6, 32)
    pad = torch.zeros(2, 6, dtype=torch.bool)
    pad[1, 4:] = True
    print(attn(x, pad).shape)
