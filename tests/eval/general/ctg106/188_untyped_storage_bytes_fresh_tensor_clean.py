import torch
from torch import nn


def tensor_payload(t):
    storage = t.untyped_storage()
    return bytes(storage)


class EmbeddingShard(nn.Module):
    def __init__(self, vocab, dim, shards):
        super().__init__()
        self.table = nn.Embedding(vocab, dim)
        self.shards = shards

    def shard_payloads(self):
        w = self.table.weight.detach()
        per = w.size(1) // self.shards
        return [tensor_payload(w[:, i * per:(i + 1) * per].clone(memory_format=torch.contiguous_format))
                for i in range(self.shards)]


def main():
    emb = EmbeddingShard(10, 8, 2)
    payloads = emb.shard_payloads()
    print([len(p) for p in payloads])
