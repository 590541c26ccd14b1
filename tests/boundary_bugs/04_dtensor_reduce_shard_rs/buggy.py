"""Re-creation of pytorch/pytorch PR #115847 ("Make input contiguous for DTensor
reduce scatter to fix the incorrect numerical values"; same symptom reported in
pytorch/pytorch#130251 and #128066).

Shard._reduce_shard_tensor (Partial -> Shard(0)) hands a non-contiguous local
tensor straight to reduce_scatter_tensor.  ncclReduceScatter reads
``input.data_ptr()`` densely, so rank r receives the wrong rows -- no error.
"""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import torch
import torch.distributed as dist

from _support import nccl


def funcol_reduce_scatter_tensor(self, reduceOp, scatter_dim, group):
    """torch.distributed._functional_collectives.reduce_scatter_tensor (2.2)."""
    group_size = dist.get_world_size(group)
    if scatter_dim != 0:
        self = torch.cat(torch.chunk(self, group_size, dim=scatter_dim))
    out_size = list(self.size())
    out_size[0] //= group_size
    out_tensor = self.new_empty(out_size)
    op = {"sum": dist.ReduceOp.SUM, "avg": dist.ReduceOp.AVG}[reduceOp]
    dist.reduce_scatter_tensor(out_tensor, self, op=op, group=group)
    return out_tensor


class Shard:
    def __init__(self, dim):
        self.dim = dim

    def _reduce_shard_tensor(self, tensor, group, reduce_op):
        num_chunks = dist.get_world_size(group)
        is_padded = tensor.size(self.dim) % num_chunks != 0
        if is_padded:
            chunks = [c.contiguous() for c in torch.chunk(tensor, num_chunks, dim=self.dim)]
            tensor = torch.cat(chunks, dim=self.dim)
        return funcol_reduce_scatter_tensor(tensor, reduce_op, scatter_dim=self.dim, group=group)  # bug-line


def row_parallel_partial(x, weight_shard):
    # local partial sum of a row-parallel linear, computed as (W @ x^T)^T
    return (weight_shard @ x.T).T


def main():
    nccl.init(world_size=4)
    try:
        group = dist.group.WORLD
        x = torch.arange(24.0).reshape(8, 3)
        w = torch.arange(6.0).reshape(2, 3) / 10
        partial = row_parallel_partial(x, w)            # (8, 2), strides (1, 8)
        out = Shard(0)._reduce_shard_tensor(partial, group, "sum")
        # every simulated rank holds the same partial: result = 4 * my rows
        ref = (partial.contiguous() * 4)[: out.shape[0]]
        if not torch.allclose(out, ref):
            raise AssertionError("wrong values")
        print("ok", tuple(out.shape))
    finally:
        nccl.shutdown()


if __name__ == "__main__":
    main()
