"""Positional table broadcast to every worker after being expanded over the batch."""
import os
import tempfile

import torch
import torch.distributed as dist


def init_single_process_group():
    if not dist.is_initialized():
        store = dist.FileStore(os.path.join(tempfile.mkdtemp(), "store"), 1)
        dist.init_process_group("gloo", store=store, rank=0, world_size=1)


class PosCache:
    def __init__(self, n, dim):
        self.table = torch.randn(1, n, dim)

    def batch_view(self, b):
        return self.table.expand(b, -1, -1)


def sync(cache):
    dist.broadcast(cache.batch_view(4), src=0)  # hazard: CTG107


def main():
    init_single_process_group()
    sync(PosCache(5, 8))
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
