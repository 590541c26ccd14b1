"""Expert dispatch with list all_to_all on transposed chunks (handled correctly)."""
import os
import tempfile

import torch
import torch.distributed as dist


def init_single_process_group():
    if not dist.is_initialized():
        store = dist.FileStore(os.path.join(tempfile.mkdtemp(), "store"), 1)
        dist.init_process_group("gloo", store=store, rank=0, world_size=1)


def dispatch(tokens):
    world = dist.get_world_size()
    send = [c.t() for c in tokens.chunk(world, dim=0)]
    recv = [torch.empty(s.shape) for s in send]
    dist.all_to_all(recv, send)
    return recv


def main():
    init_single_process_group()
    dispatch(torch.randn(4, 6))
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
