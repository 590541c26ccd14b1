"""Rank 0 gathers permuted logits for evaluation (gather honours strides)."""
import os
import tempfile

import torch
import torch.distributed as dist


def init_single_process_group():
    if not dist.is_initialized():
        store = dist.FileStore(os.path.join(tempfile.mkdtemp(), "store"), 1)
        dist.init_process_group("gloo", store=store, rank=0, world_size=1)


def collect_logits(logits):
    local = logits.permute(1, 0)
    bucket = [torch.empty(local.shape) for _ in range(dist.get_world_size())]
    dist.gather(local, bucket, dst=0)
    return bucket


def main():
    init_single_process_group()
    collect_logits(torch.randn(4, 7))
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
