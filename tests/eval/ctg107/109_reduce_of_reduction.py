"""Metric reduced after a sum over the permuted confusion matrix (a reduction is row-major)."""
import os
import tempfile

import torch
import torch.distributed as dist


def init_single_process_group():
    if not dist.is_initialized():
        store = dist.FileStore(os.path.join(tempfile.mkdtemp(), "store"), 1)
        dist.init_process_group("gloo", store=store, rank=0, world_size=1)


def per_class_totals(cm):
    return cm.permute(1, 0).sum(dim=1)


def reduce_totals(cm):
    totals = per_class_totals(cm)
    dist.reduce(totals, dst=0)
    return totals


def main():
    init_single_process_group()
    reduce_totals(torch.rand(3, 3))
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
