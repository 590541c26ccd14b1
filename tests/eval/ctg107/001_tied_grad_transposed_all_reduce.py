"""Gradient sync of a tied output projection through its transposed view."""
import os
import tempfile

import torch
import torch.distributed as dist


def init_single_process_group():
    if not dist.is_initialized():
        store = dist.FileStore(os.path.join(tempfile.mkdtemp(), "store"), 1)
        dist.init_process_group("gloo", store=store, rank=0, world_size=1)


def grad_view(param):
    return param.grad.t()


def sync_tied_grad(head_weight):
    g = grad_view(head_weight)
    dist.all_reduce(g)  # hazard: CTG107
    g.div_(dist.get_world_size())


def main():
    init_single_process_group()
    w = torch.nn.Parameter(torch.randn(6, 4))
    (w.sum() * 2).backward()
    sync_tied_grad(w)
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
