"""Data-parallel evaluation: rank 0 scatters a slice of the prediction table."""
import os
import tempfile

import torch
import torch.distributed as dist


def init_single_process_group():
    if not dist.is_initialized():
        store = dist.FileStore(os.path.join(tempfile.mkdtemp(), "store"), 1)
        dist.init_process_group("gloo", store=store, rank=0, world_size=1)


def scatter_predictions(table):
    world = dist.get_world_size()
    out = table[:, :2]
    parts = [torch.randn(4, 2) for _ in range(world)]
    dist.scatter(out, parts, src=0)  # hazard: CTG107
    return out


def main():
    init_single_process_group()
    scatter_predictions(torch.zeros(4, 6))
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
