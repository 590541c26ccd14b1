"""Data-parallel gradient sync through `.contiguous()` of gradients that are row-major."""
import os
import tempfile

import torch
import torch.distributed as dist


def init_single_process_group():
    if not dist.is_initialized():
        store = dist.FileStore(os.path.join(tempfile.mkdtemp(), "store"), 1)
        dist.init_process_group("gloo", store=store, rank=0, world_size=1)


def sync(model):
    for p in model.parameters():
        dist.all_reduce(p.grad.contiguous())


def main():
    init_single_process_group()
    m = torch.nn.Linear(4, 3)
    m(torch.randn(2, 4)).sum().backward()
    sync(m)
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
