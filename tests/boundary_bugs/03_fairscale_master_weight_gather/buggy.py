"""Re-creation of facebookresearch/fairscale PR #1173:
ColumnParallelLinear.get_master_weight() transposes the weight shard and hands
the view to gather_from_model_parallel_region -> _gather -> all_gather:
``ValueError: Tensors must be contiguous``.
"""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import torch
import torch.distributed as dist

from _support import nccl


def get_model_parallel_group():
    return dist.group.WORLD


def _gather(input_):
    """Gather tensors and concatinate along the last dimension."""
    group = get_model_parallel_group()
    if dist.get_world_size(group=group) == 1:
        return input_
    last_dim = input_.dim() - 1
    rank = dist.get_rank(group=group)
    world_size = dist.get_world_size(group=group)
    tensor_list = [torch.empty_like(input_) for _ in range(world_size)]
    tensor_list[rank] = input_
    dist.all_gather(tensor_list, input_, group=group)
    return torch.cat(tensor_list, dim=last_dim).contiguous()


def gather_from_model_parallel_region(input_):
    return _gather(input_)


class ColumnParallelLinear(torch.nn.Module):
    def __init__(self, in_features, out_features):
        super().__init__()
        ws = dist.get_world_size()
        self.out_per_partition = out_features // ws
        self.weight = torch.nn.Parameter(torch.randn(self.out_per_partition, in_features))

    def forward(self, x):
        out = torch.nn.functional.linear(x, self.weight)
        return gather_from_model_parallel_region(out)

    def get_master_weight(self):
        return gather_from_model_parallel_region(self.weight.data.transpose(0, 1)).transpose_(0, 1)  # bug-line


def main():
    nccl.init(world_size=2)
    try:
        torch.manual_seed(0)
        layer = ColumnParallelLinear(8, 6)
        master = layer.get_master_weight()
        # every (simulated) rank holds the same shard in this single-process world
        ref = torch.cat([layer.weight.data] * 2, dim=0)
        if not torch.equal(master, ref):
            raise AssertionError("wrong values")
        print("ok", tuple(master.shape))
    finally:
        nccl.shutdown()


if __name__ == "__main__":
    main()
