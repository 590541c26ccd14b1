"""ZeRO-style gradient sharding: reduce_scatter of transposed gradient shards."""
import os
import tempfile

import torch
import torch.distributed as dist


def init_single_process_group():
    if not dist.is_initialized():
        store = dist.FileStore(os.path.join(tempfile.mkdtemp(), "store"), 1)
        dist.init_process_group("gloo", store=store, rank=0, world_size=1)


def shards_of(grad, world):
    return [s.t() for s in grad.chunk(world, dim=0)]


def shard_grads(grad):
    world = dist.get_world_size()
    inputs = shards_of(grad, world)
    out = torch.empty_like(inputs[0])
    dist.reduce_scatter(out, inputs)  # hazard: CTG107
    return out


def main():
    init_single_process_group()
    out = shard_grads(torch.randn(8, 4))
    assert out.shape == (4, 8)
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
