"""Sequence-parallel activations gathered into one tensor from a transposed local block."""
import os
import tempfile

import torch
import torch.distributed as dist


def init_single_process_group():
    if not dist.is_initialized():
        store = dist.FileStore(os.path.join(tempfile.mkdtemp(), "store"), 1)
        dist.init_process_group("gloo", store=store, rank=0, world_size=1)


def gather_seq(local):
    world = dist.get_world_size()
    x = local.transpose(0, 1)
    out = torch.empty(world * x.shape[0], x.shape[1])
    dist.all_gather_into_tensor(out, x)
    return out


def main():
    init_single_process_group()
    assert gather_seq(torch.randn(6, 3)).shape == (3, 6)
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
