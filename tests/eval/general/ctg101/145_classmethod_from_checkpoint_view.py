import torch
from torch import nn


class FusedQKV(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.dim = dim
        self.qkv = nn.Linear(dim, 3 * dim, bias=False)

    @classmethod
    def from_tf_checkpoint(cls, state):
        """TF checkpoints store kernels as (in, out); torch wants (out, in)."""
        kernel = state["kernel"].t()
        dim = kernel.size(1)
        model = cls(dim)
        stacked = kernel.view(3, -1)  # hazard: CTG101
        with torch.no_grad():
            model.qkv.weight.copy_(stacked.reshape(3 * dim, dim))
        return model


def main():
    state = {"kernel": torch.randn(8, 24)}
    model = FusedQKV.from_tf_checkpoint(state)
    print(model.qkv.weight.shape)
