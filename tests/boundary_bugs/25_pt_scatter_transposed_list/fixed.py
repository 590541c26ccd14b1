"""Re-creation of pytorch/pytorch#107352 ("dist.scatter is incompatible with
transpose/permute operation", backend=nccl).

The root scatters per-rank blocks that were transposed; ProcessGroupNCCL only
validates the *output* tensor, and torch::cuda::nccl::scatter ncclSend()s
``inputs[r].data_ptr()`` for every non-root rank (the root just copy_()s its
own block).  Expected rank1 [[4,6],[5,7]]; real result [[4,5],[6,7]].
"""
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import torch
import torch.distributed as dist
import torch.multiprocessing as mp

from _support import nccl


def make_blocks():
    a = torch.arange(0, 4).reshape((2, 2)).to(torch.float)
    b = torch.arange(4, 8).reshape((2, 2)).to(torch.float)
    return [a.transpose(0, 1), b.transpose(0, 1)]       # [[0,2],[1,3]], [[4,6],[5,7]]


def scatter_blocks(dst, blocks, src=0):
    blocks = [t.contiguous() for t in blocks] if blocks is not None else None
    dist.scatter(dst, blocks, src)
    return dst


def worker(rank, init_file, q):
    nccl.init(world_size=2, rank=rank, init_file=init_file)
    try:
        src = make_blocks() if rank == 0 else None
        dst = torch.zeros((2, 2))
        scatter_blocks(dst, src, 0)
        q.put((rank, dst.tolist()))
    finally:
        nccl.shutdown()


def main():
    ctx = mp.get_context("spawn")
    q = ctx.SimpleQueue()
    mp.start_processes(worker, args=(tempfile.mktemp(), q), nprocs=2, start_method="spawn")
    results = dict(q.get() for _ in range(2))
    expected = make_blocks()
    for r in range(2):
        if not torch.equal(torch.tensor(results[r]), expected[r]):
            raise AssertionError("wrong values")
    print("ok", results)


if __name__ == "__main__":
    main()
