"""Gathering transposed features from every rank (all_gather honours strides)."""
import os
import tempfile

import torch
import torch.distributed as dist


def init_single_process_group():
    if not dist.is_initialized():
        store = dist.FileStore(os.path.join(tempfile.mkdtemp(), "store"), 1)
        dist.init_process_group("gloo", store=store, rank=0, world_size=1)


def gather_features(feats):
    local = feats.t()
    out = [torch.empty(local.shape) for _ in range(dist.get_world_size())]
    dist.all_gather(out, local)
    return torch.cat(out)


def main():
    init_single_process_group()
    assert gather_features(torch.randn(5, 3)).shape == (3, 5)
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
