"""Re-creation of sgl-project/sglang PR #39291 ("[Diffusion] Make the SP sequence
gather pass contiguous shards").

``USPAttention._gather_sharded_sequence`` slices a replicated prefix off dim 1
and all-gathers the rest; with batch > 1 the shard ``x[:, p:]`` is a
non-contiguous view and ``GroupCoordinator.all_gather`` ->
``all_gather_into_tensor`` raises "ValueError: Tensors must be contiguous".
"""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import torch
import torch.distributed as dist

from _support import nccl


class GroupCoordinator:
    def __init__(self, group):
        self.device_group = group
        self.world_size = dist.get_world_size(group)

    def all_gather(self, input_, dim=-1):
        if self.world_size == 1:
            return input_
        if dim < 0:
            dim += input_.dim()
        input_size = input_.size()
        output_tensor = torch.empty((self.world_size,) + input_size, dtype=input_.dtype)
        dist.all_gather_into_tensor(output_tensor, input_, group=self.device_group)
        output_tensor = output_tensor.movedim(0, dim)
        return output_tensor.reshape(input_size[:dim] + (self.world_size * input_size[dim],)
                                     + input_size[dim + 1:])


_SP_GROUP = None


def sequence_model_parallel_all_gather(input_, dim=-1):
    return _SP_GROUP.all_gather(input_, dim=dim)


class USPAttention:
    def _gather_sharded_sequence(self, x, replicated_prefix_len=0):
        if replicated_prefix_len:
            prefix, shard = x[:, :replicated_prefix_len], x[:, replicated_prefix_len:]
            gathered = sequence_model_parallel_all_gather(shard.contiguous(), dim=1)
            return torch.cat([prefix, gathered], dim=1)
        return sequence_model_parallel_all_gather(x, dim=1)


def main():
    global _SP_GROUP
    nccl.init(world_size=2)                              # ulysses_degree=2
    try:
        _SP_GROUP = GroupCoordinator(dist.group.WORLD)
        torch.manual_seed(0)
        x = torch.randn(2, 4 + 6, 8)                     # CFG branches batched: B=2, text prefix 4
        out = USPAttention()._gather_sharded_sequence(x, replicated_prefix_len=4)
        ref = torch.cat([x[:, :4], x[:, 4:], x[:, 4:]], dim=1)   # both ranks hold the same shard
        if not torch.equal(out, ref):
            raise AssertionError("wrong values")
        print("ok", tuple(out.shape))
    finally:
        nccl.shutdown()


if __name__ == "__main__":
    main()
