"""Gradient compression (PowerSGD/top-k style) all-reduces only the first k columns of each
gradient, p.grad[:, :k], in two ranks started by torch.multiprocessing.spawn. With gloo the
reduction reads numel elements from data_ptr, so it mixes in the wrong columns; the
collective runs in the child processes."""
import os
import sys
import tempfile

import torch
import torch.distributed as dist
import torch.multiprocessing as mp
from torch import nn


def train(rank, world_size, store):
    dist.init_process_group("gloo", init_method=f"file://{store}", rank=rank,
                            world_size=world_size)
    torch.manual_seed(rank)
    layer = nn.Linear(8, 6, bias=False)
    layer(torch.randn(4, 8)).sum().backward()
    rank_k = 3
    dist.all_reduce(layer.weight.grad[:, :rank_k])  # bug-line: CTG107
    dist.destroy_process_group()


if __name__ == "__main__":
    store = os.path.join(tempfile.mkdtemp(), "store")
    mp.spawn(train, args=(2, store), nprocs=2)
    sys.exit(0)
