"""Megatron-style tied-embedding gradient sync in two ranks forked by
torch.multiprocessing.start_processes: the word-embedding gradient is taken transposed and
all-reduced through .contiguous(), which reduces a temporary copy; the gradient itself is
never synchronised (a silent lost update)."""
import os
import tempfile

import torch
import torch.distributed as dist
import torch.multiprocessing as mp
from torch import nn


def sync_tied_embeddings(rank, store):
    dist.init_process_group("gloo", init_method=f"file://{store}", rank=rank, world_size=2)
    embedding = nn.Embedding(10, 4)
    embedding(torch.tensor([rank, 3])).sum().backward()
    output_projection_grad = embedding.weight.grad.t()
    dist.all_reduce(output_projection_grad.contiguous())  # bug-line: CTG111
    dist.destroy_process_group()


if __name__ == "__main__":
    mp.start_processes(sync_tied_embeddings, args=(os.path.join(tempfile.mkdtemp(), "store"),),
                       nprocs=2, start_method="fork")
