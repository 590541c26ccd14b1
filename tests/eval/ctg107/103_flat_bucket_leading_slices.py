"""Flat 1-D gradient buffer reduced bucket by bucket (leading-dim slices are contiguous)."""
import os
import tempfile

import torch
import torch.distributed as dist


def init_single_process_group():
    if not dist.is_initialized():
        store = dist.FileStore(os.path.join(tempfile.mkdtemp(), "store"), 1)
        dist.init_process_group("gloo", store=store, rank=0, world_size=1)


class Bucketer:
    def __init__(self, numel, buckets):
        self.flat = torch.zeros(numel)
        self.size = numel // buckets
        self.buckets = buckets

    def bucket(self, i):
        return self.flat[i * self.size:(i + 1) * self.size]

    def reduce_all(self):
        for i in range(self.buckets):
            dist.all_reduce(self.bucket(i))


def main():
    init_single_process_group()
    b = Bucketer(48, 4)
    b.reduce_all()
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
