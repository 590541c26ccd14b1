import torch
from torch import nn


def shares_memory(a, b):
    return a.data_ptr() == b.data_ptr()


class TiedLM(nn.Module):
    def __init__(self, vocab, dim):
        super().__init__()
        self.embed = nn.Embedding(vocab, dim)
        self.lm_head = nn.Linear(dim, vocab, bias=False)
        self.lm_head.weight = self.embed.weight

    def is_tied(self):
        return shares_memory(self.embed.weight, self.lm_head.weight)


def main():
    lm = TiedLM(20, 8)
    print(lm.is_tied())
