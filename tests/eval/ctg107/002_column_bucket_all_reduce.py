"""Bucketed gradient reduction over a 2-D flat buffer, one column block per bucket."""
import os
import tempfile

import torch
import torch.distributed as dist


def init_single_process_group():
    if not dist.is_initialized():
        store = dist.FileStore(os.path.join(tempfile.mkdtemp(), "store"), 1)
        dist.init_process_group("gloo", store=store, rank=0, world_size=1)


class Bucketer:
    def __init__(self, rows, cols, buckets):
        self.flat = torch.zeros(rows, cols)
        self.width = cols // buckets
        self.buckets = buckets

    def bucket(self, i):
        return self.flat[:, i * self.width:(i + 1) * self.width]

    def reduce_all(self):
        for i in range(self.buckets):
            dist.all_reduce(self.bucket(i))  # hazard: CTG107


def main():
    init_single_process_group()
    b = Bucketer(4, 12, 3)
    b.flat.normal_()
    b.reduce_all()
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
