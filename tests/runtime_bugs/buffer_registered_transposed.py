"""A relative-position table registered as a buffer in transposed form: state_dict, flat
optimizers and raw kernels all see the transposed strides."""
import torch
from torch import nn


class RelativePosition(nn.Module):
    def __init__(self, table):
        super().__init__()
        self.register_buffer("bias_table", table.t())  # bug-line: CTG103

    def forward(self, scores):
        return scores + self.bias_table


RelativePosition(torch.randn(8, 8))(torch.randn(8, 8))
