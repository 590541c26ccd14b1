"""verl 0.9.1, CTG113 (redundant .contiguous()): scripts/converter_hf_to_mcore.py:160/167/283/291/332/338,
scripts/legacy_model_merger.py:317, verl/model_merger/fsdp_model_merger.py:157,
tests/checkpoint_engine/test_block_placement.py (12 lines), verl/models/mcore/util.py:328/655,
verl/utils/kernel/kernels.py:1619/1667, verl/utils/ulysses.py:156/187.

test_block_placement.py is imported (its `verl.workers.engine.spec` import stubbed with a small
BlockPlacement record) to reuse its own _blocks_for_grid; the slices are then built exactly as each
flagged line does. The other modules need Megatron/CUDA/torch.distributed, so the flagged
expressions are evaluated on tensors of the shapes the surrounding code builds.
"""
import sys
from dataclasses import dataclass
from pathlib import Path

import torch

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import bare_import, report, stub_module  # noqa: E402

torch.manual_seed(0)


def noop(t):
    return t.contiguous().data_ptr() == t.data_ptr() and t.is_contiguous()


@dataclass
class BlockPlacement:  # the fields test_block_placement.py reads
    local_shape: tuple
    global_offset: tuple
    full_shape: tuple

    @property
    def is_flat_contiguous(self):
        return all(s == f for s, f in zip(self.local_shape[1:], self.full_shape[1:]))


stub_module("verl.workers.engine.spec", BlockPlacement=BlockPlacement, translate_flat_indices=None)
tbp = bare_import("verl", "tests.checkpoint_engine.test_block_placement")


def sl(place):
    return tuple(slice(o, o + sz) for o, sz in zip(place.global_offset, place.local_shape))


def block_tests():
    out = {}
    # lines 71 (parametrized grids) and 83 (one sparse block)
    grids = [((8, 4, 6), {0: 4, 1: 2}), ((16, 8), {1: 4}), ((6, 5, 7), {2: 7}), ((12,), {0: 3})]
    r71 = [noop(torch.randn(fs)[sl(p)]) for fs, g in grids for p in tbp._blocks_for_grid(fs, g)]
    r83 = noop(torch.randn(8, 4, 6)[sl(BlockPlacement((2, 2, 6), (4, 2, 0), (8, 4, 6)))])
    out["71/83 local=full[slices]"] = f"{sum(r71)}/{len(r71)} no-ops, sparse block no-op={r83}"
    # lines 125/126, 363/364, 442/443: (8, 4, 6) experts on an ep=4 x ep_shard=2 grid
    r = [noop(torch.randn(8, 4, 6)[sl(p)]) for p in tbp._blocks_for_grid((8, 4, 6), {0: 4, 1: 2})]
    out["125/126/363/364/442/443"] = f"{sum(r)}/{len(r)} no-ops"
    # lines 198/199: manual ep split on dim0 + fsdp Shard(1) of (n_experts, 2I, H)
    full = torch.randn(8, 6, 4)
    r = [noop(full[sl(BlockPlacement((4, 3, 4), (e * 4, f * 3, 0), (8, 6, 4)))]) for e in range(2) for f in range(2)]
    out["198/199"] = f"{sum(r)}/{len(r)} no-ops"
    # lines 293/294: whole experts only (dim-0 blocks)
    r = [noop(torch.randn(8, 4, 6)[sl(BlockPlacement((2, 4, 6), (e * 4 + f * 2, 0, 0), (8, 4, 6)))])
         for e in range(2) for f in range(2)]
    out["293/294"] = f"{sum(r)}/{len(r)} no-ops"
    return "; ".join(f"{k}: {v}" for k, v in out.items())


report("CTG113 test_block_placement.py old/new/full[slices].contiguous()", block_tests)


def converter():
    G, D, H, heads = 2, 8, 64, 8  # GQA: 8 query heads, 2 kv groups
    q_w, k_w, v_w = torch.randn(heads * D, H), torch.randn(G * D, H), torch.randn(G * D, H)
    q_b, k_b, v_b = torch.randn(heads * D), torch.randn(G * D), torch.randn(G * D)
    r160 = noop(torch.cat([q_w.view(G, D * heads // G, -1), k_w.view(G, D, -1), v_w.view(G, D, -1)], dim=1).view(-1, H))
    r167 = noop(torch.cat([q_b.view(G, -1), k_b.view(G, -1), v_b.view(G, -1)], dim=1).view(-1))
    r283, r291 = [], []
    for groups in (1, 4):  # vision qkv: (3 * heads * D, hidden), MHA or grouped
        qkv_w, qkv_b = torch.randn(3 * 4 * 16, 64), torch.randn(3 * 4 * 16)
        r283.append(noop(qkv_w.view(3, groups, -1, 16, 64).transpose(0, 1).flatten(1, 2).reshape(-1, 64)))
        r291.append(noop(qkv_b.view(3, groups, -1).transpose(0, 1).flatten(1, 2).view(-1)))
    r332, r338 = [], []
    for qg in (G, heads):  # GQA and MHA (k/v views then have a size-1 dim 1)
        qv = q_w.view(qg, -1, D, H)
        kv = torch.randn(qg * D, H).view(qg, -1, D, H)
        r332.append(noop(torch.cat([qv, kv, kv.clone()], dim=1).view(-1, H)))
        r338.append(noop(torch.cat([q_b.view(qg, -1), torch.randn(qg * D).view(qg, -1), torch.randn(qg * D).view(qg, -1)], dim=1).view(-1)))
    return f"160={r160} 167={r167} 283(MHA, grouped)={r283} 291={r291} 332(GQA, MHA)={r332} 338={r338}"


report("CTG113 converter_hf_to_mcore.py qkv .contiguous() calls", converter)


def mergers():
    res = []
    for shards, dim in (([torch.randn(4, 8)] * 2, 0), ([torch.randn(8, 4)] * 2, 1),
                        ([torch.randn(2, 3, 2, 14, 14)] * 2, 0), ([torch.randn(5)] * 2, 0)):
        res.append(noop(torch.cat(shards, dim=dim)))  # _merge_by_placement, Shard(dim) local tensors
    return f"cat of loaded FSDP shards (2-D rows/cols, 5-D conv3d patch_embed, 1-D) no-op: {res}"


report("CTG113 legacy_model_merger.py:317 / fsdp_model_merger.py:157 torch.cat(tensors, dim).contiguous()", mergers)


def mcore_util():
    pos = torch.zeros(37, dtype=torch.int32)
    r328 = noop(pos.unsqueeze(0).transpose(0, 1))
    res = []
    for m in (torch.ones(3, 16, dtype=torch.bool), torch.ones(3, 20, dtype=torch.bool)[:, :16]):
        seq = m.shape[1]
        causal = torch.tril(torch.ones(seq, seq, dtype=torch.bool))
        a = (m.unsqueeze(-1) & m.unsqueeze(-2)) & causal
        res.append(noop((~a).unsqueeze(1)))
    return f"328 no-op={r328}; 655 no-op for a batch mask and a sliced mask={res}"


report("CTG113 mcore/util.py:328 / :655", mcore_util)
report("CTG113 kernels.py:1619/1667 torch.empty(...).contiguous()",
       lambda: f"no-op={noop(torch.empty((64, 1024), dtype=torch.bfloat16))}")


def ulysses():
    res = []
    for x in (torch.randn(2, 32, 8, 16), torch.randn(2, 8, 32, 16).transpose(1, 2), torch.randn(32, 2, 128)):
        inputs = [t.contiguous() for t in torch.tensor_split(x, 4, 2)]
        outs = [torch.empty_like(inputs[0]) for _ in range(4)]
        res.append(noop(torch.cat(outs, dim=1)))
    g = torch.tensor(1.0).expand(2, 8, 8, 16)  # async backward: grads, e.g. an expanded one
    res187 = noop(torch.cat([g, torch.randn(2, 8, 8, 16).transpose(2, 3).transpose(2, 3)], dim=1))
    return f"156 no-op={res}; 187 (cat of grads incl. a stride-0 one) no-op={res187}"


report("CTG113 ulysses.py:156/187 torch.cat(...).contiguous()", ulysses)
