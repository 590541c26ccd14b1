"""Evaluation metrics reduced to rank 0 in class-major order."""
import os
import tempfile

import torch
import torch.distributed as dist


def init_single_process_group():
    if not dist.is_initialized():
        store = dist.FileStore(os.path.join(tempfile.mkdtemp(), "store"), 1)
        dist.init_process_group("gloo", store=store, rank=0, world_size=1)


def confusion_counts(preds, labels, n):
    cm = torch.zeros(n, n)
    cm.index_put_((labels, preds), torch.ones_like(preds, dtype=torch.float), accumulate=True)
    return cm


def reduce_metrics(preds, labels, n):
    cm = confusion_counts(preds, labels, n).permute(1, 0)
    dist.reduce(cm, dst=0)  # hazard: CTG107
    return cm


def main():
    init_single_process_group()
    reduce_metrics(torch.randint(0, 3, (20,)), torch.randint(0, 3, (20,)), 3)
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
