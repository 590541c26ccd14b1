"""Re-creation of pytorch/pytorch#144060 (fixed by #144267):
``torch.distributed.nn.functional.all_reduce`` clones its input with
``tensor.clone()``, which preserves a transposed layout, then hands the clone
to ``dist.all_reduce`` -> ProcessGroupNCCL "Tensors must be contiguous".
"""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import torch
import torch.distributed as dist
from torch.autograd import Function

from _support import nccl


class _AllReduce(Function):
    @staticmethod
    def forward(ctx, op, group, tensor):
        ctx.group = group
        ctx.op = op
        tensor = tensor.clone()
        dist.all_reduce(tensor, op=op, group=group)  # bug-line
        return tensor

    @staticmethod
    def backward(ctx, grad_output):
        return (None, None) + (_AllReduce.apply(ctx.op, ctx.group, grad_output),)


def all_reduce(tensor, op=dist.ReduceOp.SUM, group=None):
    group = dist.group.WORLD if group is None else group
    return _AllReduce.apply(op, group, tensor)


class SyncedCenterLoss(torch.nn.Module):
    """Class-centre statistics averaged over data-parallel ranks."""

    def __init__(self, dim, n_cls):
        super().__init__()
        self.proj = torch.nn.Parameter(torch.randn(dim, n_cls))

    def forward(self, feats):
        scores = feats @ self.proj             # (batch, n_cls)
        per_class = scores.T                   # (n_cls, batch) view
        summed = all_reduce(per_class)
        return summed / dist.get_world_size()


def main():
    nccl.init(world_size=2)
    try:
        torch.manual_seed(0)
        m = SyncedCenterLoss(6, 3)
        x = torch.randn(5, 6)
        out = m(x)
        ref = (x @ m.proj).T.detach()
        if not torch.allclose(out, ref, atol=1e-5):
            raise AssertionError("wrong values")
        out.sum().backward()
        print("ok", tuple(out.shape))
    finally:
        nccl.shutdown()


if __name__ == "__main__":
    main()
