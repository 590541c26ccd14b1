"""Re-creation of modelscope/mcore-bridge PR #197 (fixes modelscope/ms-swift#10136):
"make fp8 scale_inv contiguous before TP/PP collectives".

``_get_weight`` trims the padding TE adds to ``_rowwise_scale_inv`` by slicing
the last dim; grouped-MoE experts keep a 3-D tensor, so ``scale_inv[0]`` is a
non-contiguous view that reaches ``_all_gather_tp`` -> ProcessGroupNCCL
``ValueError: Tensors must be contiguous``.
"""
import math
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import torch
import torch.distributed as dist

from _support import nccl

BLOCK = 128


class FakeFP8Weight:
    """Stand-in for a TE Float8BlockwiseQTensor: data + padded row-wise scales."""

    def __init__(self, data):
        self._data = data
        e, n, k = data.shape
        padded_k = math.ceil(math.ceil(k / BLOCK) / 4) * 4        # TE pads to 4
        self._rowwise_scale_inv = torch.rand(e, n, padded_k) + 0.5


class Bridge:
    def __init__(self, tp_group):
        self.tp_group = tp_group

    def _get_weight(self, mg_weight):
        k = mg_weight._data.shape[-1]
        scale_inv = mg_weight._rowwise_scale_inv
        scale_inv = scale_inv[..., : math.ceil(k / BLOCK)]  # bug-line
        return mg_weight._data, scale_inv

    def _all_gather_tp(self, tensor):
        tp = dist.get_world_size(self.tp_group)
        out = [torch.empty_like(tensor) for _ in range(tp)]
        dist.all_gather(out, tensor, group=self.tp_group)
        return torch.cat(out, dim=0)

    def export_expert(self, mg_weight, expert_idx):
        data, mg_scale_inv = self._get_weight(mg_weight)
        return self._all_gather_tp(data[expert_idx]), self._all_gather_tp(mg_scale_inv[expert_idx])


def main():
    nccl.init(world_size=2)
    try:
        torch.manual_seed(0)
        w = FakeFP8Weight(torch.randn(4, 16, 256))
        bridge = Bridge(dist.group.WORLD)
        data, scale = bridge.export_expert(w, 1)
        ref = torch.cat([w._rowwise_scale_inv[1, :, :2]] * 2, 0)
        if not torch.equal(scale, ref):
            raise AssertionError("wrong values")
        print("ok", tuple(data.shape), tuple(scale.shape))
    finally:
        nccl.shutdown()


if __name__ == "__main__":
    main()
