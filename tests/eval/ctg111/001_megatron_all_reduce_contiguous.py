"""Tied-embedding gradient sync that reduces a temporary copy (Megatron-LM #5337 pattern)."""
import os
import tempfile

import torch
import torch.distributed as dist


def init_single_process_group():
    if not dist.is_initialized():
        store = dist.FileStore(os.path.join(tempfile.mkdtemp(), "store"), 1)
        dist.init_process_group("gloo", store=store, rank=0, world_size=1)


def word_embedding_grad(output_layer):
    return output_layer.weight.grad.t()


def sync_tied(output_layer):
    grad = word_embedding_grad(output_layer)
    dist.all_reduce(grad.contiguous())  # hazard: CTG111


def main():
    init_single_process_group()
    layer = torch.nn.Linear(4, 6)
    layer(torch.randn(2, 4)).sum().backward()
    sync_tied(layer)
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
