import torch
from torch import nn


class KVCacheExporter(nn.Module):
    def __init__(self, dim, heads, layers):
        super().__init__()
        self.heads = heads
        self.kv = nn.ModuleList(nn.Linear(dim, 2 * dim) for _ in range(layers))

    def forward(self, x):
        b, t, d = x.shape
        keys, values = [], []
        for proj in self.kv:
            k, v = proj(x).view(b, t, 2, self.heads, d // self.heads).unbind(2)
            keys.append(k.transpose(1, 2))
            values.append(v)
        packed = []
        for k, v in zip(keys, values):
            packed.append(torch.cat([k.reshape(b, -1), v.view(b, t, -1).reshape(b, -1)], dim=-1))
        return torch.stack(packed)


def main():
    exp = KVCacheExporter(16, 4, 2)
    print(exp(torch.randn(2, 3, 16)).shape)
