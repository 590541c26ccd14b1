"""Parameter sync at start-up broadcasting a contiguous copy of a transposed parameter view."""
import os
import tempfile

import torch
import torch.distributed as dist


def init_single_process_group():
    if not dist.is_initialized():
        store = dist.FileStore(os.path.join(tempfile.mkdtemp(), "store"), 1)
        dist.init_process_group("gloo", store=store, rank=0, world_size=1)


def in_out(layer):
    return layer.weight.data.t()


def sync_params(layer):
    dist.broadcast(in_out(layer).contiguous(), src=0)  # hazard: CTG111


def main():
    init_single_process_group()
    sync_params(torch.nn.Linear(4, 3))
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
