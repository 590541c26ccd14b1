"""Pipeline parallelism: stage 0 sends its (batch, seq, hidden) activations to stage 1 after a
transpose to the (seq, batch, hidden) layout stage 1 expects; send() of a non-contiguous
tensor raises on gloo. The stages are processes forked by
torch.multiprocessing.start_processes."""
import os
import tempfile

import torch
import torch.distributed as dist
import torch.multiprocessing as mp


def stage(rank, store):
    dist.init_process_group("gloo", init_method=f"file://{store}", rank=rank, world_size=2)
    if rank == 0:
        activations = torch.randn(2, 5, 4)
        dist.send(activations.transpose(0, 1), dst=1)  # bug-line: CTG107
    else:
        received = torch.empty(5, 2, 4)
        dist.recv(received, src=0)
    dist.destroy_process_group()


if __name__ == "__main__":
    mp.start_processes(stage, args=(os.path.join(tempfile.mkdtemp(), "store"),), nprocs=2,
                       start_method="fork")
