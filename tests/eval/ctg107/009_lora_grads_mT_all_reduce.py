"""LoRA training: gradients of the B factor reduced in the merged (in, out) orientation."""
import os
import tempfile

import torch
import torch.distributed as dist


def init_single_process_group():
    if not dist.is_initialized():
        store = dist.FileStore(os.path.join(tempfile.mkdtemp(), "store"), 1)
        dist.init_process_group("gloo", store=store, rank=0, world_size=1)


class LoRA(torch.nn.Module):
    def __init__(self, d, r):
        super().__init__()
        self.A = torch.nn.Parameter(torch.randn(r, d))
        self.B = torch.nn.Parameter(torch.randn(d, r))

    def grads_in_merged_order(self):
        return [self.A.grad.mT, self.B.grad.mT]


def sync(model):
    for g in model.grads_in_merged_order():
        dist.all_reduce(g, op=dist.ReduceOp.SUM)  # hazard: CTG107


def main():
    init_single_process_group()
    m = LoRA(6, 2)
    (m.B @ m.A).sum().backward()
    sync(m)
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
