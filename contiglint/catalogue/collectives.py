"""Per-op, per-backend contracts of `torch.distributed` collectives and point-to-point ops.

What each op does with a non-contiguous tensor in each argument, read from the backends'
sources (pytorch/pytorch, torch/csrc/distributed/c10d/) and, for gloo, measured with two ranks:

* ProcessGroupNCCL.cpp: `check_gpu_single_tensor(t)` raises `ValueError: Tensors must be
  contiguous` unless `t.is_contiguous(t.suggest_memory_format())`. It is called on the tensor
  of `allreduce`, `broadcast`, `reduce`, on the input of `allgather`, on the output of
  `reduce_scatter`, and on both tensors of `_allgather_base` (`all_gather_into_tensor`).
  `allgather` gathers into a flat buffer made by `newLikeFlat` and copies it into each output
  with `copy_`, so its outputs may have any layout; `reduce_scatter` copies its inputs into a
  flat buffer the same way. For point-to-point ops (`send`, `recv`) and `alltoall`/
  `alltoall_base` the check is called with `p2p=true`: it only warns ("Detected non-contiguous
  tensor in P2P operations") and NCCL then moves `numel()` elements from `data_ptr()` in memory
  order. `gather`, `scatter` and `_reduce_scatter_base` pass `data_ptr()` on without a
  contiguity check.
* ProcessGroupGloo.cpp (measured, docs/layout-facts.md): allreduce, broadcast, reduce,
  reduce_scatter and scatter work on `numel()` elements from `data_ptr()` (wrong values,
  writes outside the view); allgather, gather, alltoall, `_allgather_base` and
  `_reduce_scatter_base` flatten or copy and are correct; `alltoall_base` raises for a
  non-contiguous input and misplaces values in a non-contiguous output; send/recv raise
  `input tensor has to be contiguous`.

Measured on NCCL (tests/test_nccl_collectives.py: one rank on one GPU, torch 2.11, NCCL
2.28; two ranks cannot share a GPU): every NCCL_RAISES slot raises and every OK slot is
correct. Torch 2.11 differs from the reading above in three places, which `NCCL_CHECKED`,
`NCCL_UNWRITTEN` and `NCCL_RAW_EARLIER` name with both behaviours: `gather`'s input and both
tensors of `all_to_all`/`all_to_all_single` raise 'Tensors must be contiguous' (earlier releases
moved them in memory order, pytorch#159548 for gather); `reduce_scatter_tensor` and
`_reduce_scatter_base` leave a non-contiguous output unwritten, and read a non-contiguous input
correctly (earlier releases read it in memory order, pytorch#128066). `gather`'s outputs and
both of `scatter`'s tensors are copied, not sent, on the root's own rank, so one rank cannot
show what NCCL does with them between ranks.

`hazard(op, argument, backend)` answers for one argument; `backend="any"` reports what fails or
corrupts on any backend, which is what a test run on CPU/gloo needs to warn about NCCL.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Optional, Union

BACKENDS = ("any", "nccl", "gloo")

OK = ""
NCCL_RAISES = "raises 'Tensors must be contiguous' on NCCL"
NCCL_RAW = "is unchecked on NCCL, which moves numel() elements from data_ptr()"
NCCL_P2P = ("only warns on NCCL, then moves the elements in memory order (wrong unless both "
            "sides share the strides)")
NCCL_CHECKED = ("raises 'Tensors must be contiguous' on NCCL (torch 2.11; older releases move "
                "it in memory order)")
NCCL_UNWRITTEN = "is left unwritten on NCCL (torch 2.11; older releases write it in memory order)"
NCCL_RAW_EARLIER = "is read in memory order by NCCL before torch 2.11 (pytorch#128066)"
GLOO_WRONG = "gives wrong values on gloo and may write outside the view"
GLOO_P2P = "raises 'input tensor has to be contiguous' on gloo"
GLOO_A2A_IN = "raises 'Tensors must be contiguous' on gloo"
GLOO_A2A_OUT = "silently scatters the received values in memory order on gloo"


@dataclass(frozen=True)
class Slot:
    """One tensor argument of an op: its position, its keyword (torch.distributed's own
    parameter name), whether it holds a list of tensors, whether the op writes it, and the
    effect of a non-contiguous tensor there on each backend ("" when it is handled)."""

    position: int
    keyword: str
    nccl: str
    gloo: str
    writes: bool = False
    is_list: bool = False

    def effect(self, backend: str) -> str:
        if backend == "nccl":
            return self.nccl
        if backend == "gloo":
            return self.gloo
        return "; it ".join(e for e in (self.nccl, self.gloo) if e)


def _one(keyword: str, nccl: str, gloo: str, writes: bool) -> tuple[Slot, ...]:
    return (Slot(0, keyword, nccl, gloo, writes),)


COLLECTIVES: dict[str, tuple[Slot, ...]] = {
    "all_reduce": _one("tensor", NCCL_RAISES, GLOO_WRONG, True),
    "broadcast": _one("tensor", NCCL_RAISES, GLOO_WRONG, True),
    "reduce": _one("tensor", NCCL_RAISES, GLOO_WRONG, True),
    "all_gather": (Slot(0, "tensor_list", OK, OK, True, True),
                   Slot(1, "tensor", NCCL_RAISES, OK)),
    "all_gather_into_tensor": (Slot(0, "output_tensor", NCCL_RAISES, OK, True),
                               Slot(1, "input_tensor", NCCL_RAISES, OK)),
    "_all_gather_base": (Slot(0, "output_tensor", NCCL_RAISES, OK, True),
                         Slot(1, "input_tensor", NCCL_RAISES, OK)),
    "reduce_scatter": (Slot(0, "output", NCCL_RAISES, GLOO_WRONG, True),
                       Slot(1, "input_list", OK, GLOO_WRONG, False, True)),
    "reduce_scatter_tensor": (Slot(0, "output", NCCL_UNWRITTEN, OK, True),
                              Slot(1, "input", NCCL_RAW_EARLIER, OK)),
    "_reduce_scatter_base": (Slot(0, "output", NCCL_UNWRITTEN, OK, True),
                             Slot(1, "input", NCCL_RAW_EARLIER, OK)),
    "gather": (Slot(0, "tensor", NCCL_CHECKED, OK),
               Slot(1, "gather_list", NCCL_RAW, OK, True, True)),
    "scatter": (Slot(0, "tensor", NCCL_RAW, GLOO_WRONG, True),
                Slot(1, "scatter_list", NCCL_RAW, GLOO_WRONG, False, True)),
    "all_to_all_single": (Slot(0, "output", NCCL_CHECKED, GLOO_A2A_OUT, True),
                          Slot(1, "input", NCCL_CHECKED, GLOO_A2A_IN)),
    "all_to_all": (Slot(0, "output_tensor_list", NCCL_CHECKED, OK, True, True),
                   Slot(1, "input_tensor_list", NCCL_CHECKED, OK, False, True)),
    "send": _one("tensor", NCCL_P2P, GLOO_P2P, False),
    "isend": _one("tensor", NCCL_P2P, GLOO_P2P, False),
    "recv": _one("tensor", NCCL_P2P, GLOO_P2P, True),
    "irecv": _one("tensor", NCCL_P2P, GLOO_P2P, True),
    # `P2POp(dist.isend, tensor, peer)` for batch_isend_irecv: the same as isend/irecv
    "P2POp": (Slot(1, "tensor", NCCL_P2P, GLOO_P2P),),  # written only for irecv
}
ASYNC = frozenset({"isend", "irecv"})


def slot(op: str, argument: Union[int, str]) -> Optional[Slot]:
    """The slot of `op` at a position or keyword (`"tensor_list[2]"` names a list item)."""
    name = op.rsplit(".", 1)[-1]
    if isinstance(argument, str):
        argument = argument.split("[", 1)[0]
    for candidate in COLLECTIVES.get(name, ()):
        if argument in (candidate.position, candidate.keyword, str(candidate.position)):
            return candidate
    return None


def hazard(op: str, argument: Union[int, str], backend: str = "any") -> Optional[tuple[str, bool]]:
    """(effect, whether the op writes the tensor) for a non-contiguous tensor passed to `op`
    at `argument` on `backend`, or None when that backend handles it."""
    found = slot(op, argument)
    if found is None:
        return None
    effect = found.effect(backend)
    return (effect, found.writes) if effect else None


def written_tensors() -> dict[str, tuple[int, str]]:
    """Per op, the (position, keyword) of the single tensor it writes its result into."""
    return {op: (s.position, s.keyword) for op, slots in COLLECTIVES.items() for s in slots
            if s.writes and not s.is_list}


def gloo_safe(op: str) -> bool:
    """A collective that handles a non-contiguous tensor in every argument on gloo (what a
    CPU run can show); False for ops the table does not know."""
    slots = COLLECTIVES.get(op.rsplit(".", 1)[-1])
    return slots is not None and not any(s.gloo for s in slots)


def keywords() -> frozenset[str]:
    return frozenset(s.keyword for slots in COLLECTIVES.values() for s in slots)
