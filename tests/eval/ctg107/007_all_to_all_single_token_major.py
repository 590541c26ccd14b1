"""Expert-parallel token dispatch with all_to_all_single on token-major activations."""
import os
import tempfile

import torch
import torch.distributed as dist


def init_single_process_group():
    if not dist.is_initialized():
        store = dist.FileStore(os.path.join(tempfile.mkdtemp(), "store"), 1)
        dist.init_process_group("gloo", store=store, rank=0, world_size=1)


def dispatch(tokens):
    # tokens: (hidden, n_tokens) from a feature-major MoE router
    send = tokens.t()
    recv = torch.empty(send.shape)
    try:
        dist.all_to_all_single(recv, send)  # hazard: CTG107
    except ValueError:
        recv.copy_(send)
    return recv


def main():
    init_single_process_group()
    dispatch(torch.randn(8, 6))
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
