"""Re-creation of pytorch/pytorch#62283 "c10d and discontiguous tensors with
mismatch strides" (NCCL: "silent wrong result"; validation added in #77809,
relaxed to a warning for P2P in #114982).

Rank 0 sends ``t.T``; NCCL ships ``numel`` elements from ``data_ptr()`` and
rank 1 writes them densely into its contiguous buffer -> transposed garbage.
"""
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import torch
import torch.distributed as dist
import torch.multiprocessing as mp

from _support import nccl


def make_activation():
    g = torch.Generator().manual_seed(0)
    return torch.randint(10, [4, 4], dtype=torch.int32, generator=g).T


def send_forward(tensor, dst):
    dist.send(tensor.contiguous(), dst, tag=128)


def recv_forward(shape, src):
    t = torch.zeros(shape, dtype=torch.int32)
    dist.recv(t, src, tag=128)
    return t


def worker(rank, init_file, q):
    nccl.init(world_size=2, rank=rank, init_file=init_file)
    try:
        if rank == 0:
            send_forward(make_activation(), 1)
        else:
            q.put(recv_forward((4, 4), 0).tolist())
    finally:
        nccl.shutdown()


def main():
    ctx = mp.get_context("spawn")
    q = ctx.SimpleQueue()
    mp.start_processes(worker, args=(tempfile.mktemp(), q), nprocs=2, start_method="spawn")
    got = torch.tensor(q.get(), dtype=torch.int32)
    if not torch.equal(got, make_activation()):
        raise AssertionError("wrong values")
    print("ok", got.tolist())


if __name__ == "__main__":
    main()
