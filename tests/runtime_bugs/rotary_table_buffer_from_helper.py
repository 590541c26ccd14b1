"""A rotary-embedding table computed by a helper with einsum and a final transpose is
registered as a buffer: the buffer keeps the transposed strides (state_dict, flat
optimizers and raw kernels see them)."""
import torch
from torch import nn


def rotary_angles(dim, positions):
    inverse = 1.0 / (10000 ** (torch.arange(0, dim, 2).float() / dim))
    return torch.einsum("i,j->ij", torch.arange(positions).float(), inverse).t()


class Rotary(nn.Module):
    def __init__(self, dim=8, positions=16):
        super().__init__()
        self.register_buffer("angles", rotary_angles(dim, positions))  # bug-line: CTG103


Rotary()
