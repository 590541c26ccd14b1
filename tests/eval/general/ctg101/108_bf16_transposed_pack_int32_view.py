import torch
from torch import nn


class BF16Packer:
    """Packs pairs of bf16 values into int32 words for a custom kernel."""

    def __init__(self, layer: nn.Linear):
        self.weight = layer.weight.detach().to(torch.bfloat16)

    def pack_column_major(self):
        cols = self.weight.t()
        return cols.view(torch.int32)  # hazard: CTG101

    def pack_row_major(self):
        return self.weight.view(torch.int32)


def main():
    packer = BF16Packer(nn.Linear(8, 6))
    print(packer.pack_row_major().shape)
    print(packer.pack_column_major().shape)
