"""Sequence-parallel activations are stored (seq, batch, hidden) and a helper all-reduces them
as (batch, seq, hidden) via transpose(0, 1): gloo reduces memory order, which is fine here
only by luck of a sum, and broadcasts/reduce-scatters of the same view are wrong. Two ranks
run in processes started with multiprocessing's fork start method."""
import multiprocessing
import os
import tempfile

import torch
import torch.distributed as dist


def batch_major(activations):
    return activations.transpose(0, 1)


def worker(rank, store):
    dist.init_process_group("gloo", init_method=f"file://{store}", rank=rank, world_size=2)
    hidden = torch.full((5, 2, 4), float(rank))
    dist.broadcast(batch_major(hidden), src=0)  # bug-line: CTG107
    dist.destroy_process_group()


if __name__ == "__main__":
    store = os.path.join(tempfile.mkdtemp(), "store")
    context = multiprocessing.get_context("fork")
    workers = [context.Process(target=worker, args=(rank, store)) for rank in range(2)]
    for process in workers:
        process.start()
    for process in workers:
        process.join()
    assert all(process.exitcode == 0 for process in workers)
