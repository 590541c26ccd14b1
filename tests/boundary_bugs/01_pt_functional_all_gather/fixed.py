"""Re-creation of pytorch/pytorch#73515 (fixed by #79747):
torch.distributed.nn.functional.all_gather -> "Tensors must be contiguous".

The caller hands the differentiable all_gather a transposed feature matrix;
``_AllGather.forward`` passes it unchanged to ``dist.all_gather`` (NCCL).
"""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import torch
import torch.distributed as dist
from torch.autograd import Function

from _support import nccl


class _AllGather(Function):
    @staticmethod
    def forward(ctx, group, tensor):
        # Need contiguous tensors for collectives.
        tensor = tensor.contiguous()

        ctx.group = group
        out_tensor_list = [
            torch.empty_like(tensor) for _ in range(dist.get_world_size(group=group))
        ]
        dist.all_gather(out_tensor_list, tensor, group=group)
        return tuple(out_tensor_list)

    @staticmethod
    def backward(ctx, *grad_outputs):
        # gradient of the local slot, summed over ranks (upstream: AlltoAll + sum)
        rank = dist.get_rank(group=ctx.group)
        gx = grad_outputs[rank].contiguous()
        dist.all_reduce(gx, group=ctx.group)
        return (None, gx)


def all_gather(tensor, group=None):
    group = dist.group.WORLD if group is None else group
    return _AllGather.apply(group, tensor)


def contrastive_logits(image_emb, text_emb):
    # Lightning-style: gather features from all ranks, then similarity
    all_text = torch.cat(all_gather(text_emb), dim=0)
    return image_emb @ all_text.t()


def main():
    nccl.init(world_size=2)
    try:
        torch.manual_seed(0)
        img = torch.randn(4, 8)
        # projection stored as (dim, batch); .t() gives the (batch, dim) view
        txt_t = torch.randn(8, 4, requires_grad=True)
        logits = contrastive_logits(img, txt_t.t())
        ref = img @ torch.cat([txt_t.t().detach()] * 2, 0).t()
        if not torch.allclose(logits, ref, atol=1e-5):
            raise AssertionError("wrong values")
        logits.sum().backward()
        print("ok", tuple(logits.shape))
    finally:
        nccl.shutdown()


if __name__ == "__main__":
    main()
