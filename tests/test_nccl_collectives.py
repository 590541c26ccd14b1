"""The NCCL column of the collectives table (contiglint/catalogue/collectives.py), measured.

Each argument of each collective gets a transposed (non-contiguous) tensor while every other
argument is contiguous, in a one-rank NCCL process group on the GPU, and what NCCL does must
be what the table says:

* NCCL_RAISES, and NCCL_CHECKED from torch 2.11: the call raises, naming contiguity;
* OK, and NCCL_RAW_EARLIER from torch 2.11: the call returns and the destination holds the
  source's values;
* NCCL_UNWRITTEN from torch 2.11: the call returns and the destination keeps its old values.

One rank suffices for these: the contiguity check and the copies torch makes run before any
communication. It does not for what moves between ranks: point-to-point ops need a peer other
than the caller (`send`, `recv`, `isend`, `irecv`, `P2POp`), and the root copies its own part of
a `gather` or `scatter` instead of sending it (`ONE_RANK_COPIES`); two ranks cannot share one
GPU (NCCL: "Duplicate GPU detected"). Those stay the table's reading of the sources. CUDA tests:
they skip where torch has no CUDA device or no NCCL.
"""
from __future__ import annotations

import warnings

import pytest
import torch

from contiglint.catalogue import collectives

dist = pytest.importorskip("torch.distributed")
needs_nccl = pytest.mark.skipif(
    not (torch.cuda.is_available() and dist.is_available() and dist.is_nccl_available()),
    reason="needs a CUDA device and NCCL")

TWO_RANKS = frozenset({"send", "recv", "isend", "irecv", "P2POp"})
ONE_RANK_COPIES = frozenset({("gather", 1), ("scatter", 0), ("scatter", 1)})
SINCE_2_11 = {collectives.NCCL_CHECKED: "raises", collectives.NCCL_UNWRITTEN: "not written",
              collectives.NCCL_RAW_EARLIER: "correct"}
EXPECTED = {collectives.NCCL_RAISES: "raises", collectives.OK: "correct", **SINCE_2_11}
TORCH = tuple(int(part) for part in torch.__version__.split(".")[:2])

# per op: which role each tensor position plays ("in" is read, "out" written, "both" is read
# and written in place) and how the op is called with the tensors of positions 0 and 1
CALLS = {
    "all_reduce": (("both",), lambda a: dist.all_reduce(a)),
    "broadcast": (("both",), lambda a: dist.broadcast(a, src=0)),
    "reduce": (("both",), lambda a: dist.reduce(a, dst=0)),
    "all_gather": (("out", "in"), lambda o, i: dist.all_gather([o], i)),
    "all_gather_into_tensor": (("out", "in"), lambda o, i: dist.all_gather_into_tensor(o, i)),
    "_all_gather_base": (("out", "in"), lambda o, i: dist._all_gather_base(o, i)),
    "reduce_scatter": (("out", "in"), lambda o, i: dist.reduce_scatter(o, [i])),
    "reduce_scatter_tensor": (("out", "in"), lambda o, i: dist.reduce_scatter_tensor(o, i)),
    "_reduce_scatter_base": (("out", "in"), lambda o, i: dist._reduce_scatter_base(o, i)),
    "gather": (("in", "out"), lambda i, o: dist.gather(i, [o], dst=0)),
    "scatter": (("out", "in"), lambda o, i: dist.scatter(o, [i], src=0)),
    "all_to_all_single": (("out", "in"), lambda o, i: dist.all_to_all_single(o, i)),
    "all_to_all": (("out", "in"), lambda o, i: dist.all_to_all([o], [i])),
}

SLOTS = [(op, s) for op, slots in collectives.COLLECTIVES.items() for s in slots
         if op not in TWO_RANKS and (op, s.position) not in ONE_RANK_COPIES]


def test_every_collective_is_measured_or_needs_two_ranks():
    assert set(CALLS) | TWO_RANKS == set(collectives.COLLECTIVES)
    assert all(len(CALLS[op][0]) == len(collectives.COLLECTIVES[op]) for op in CALLS)
    assert all(slot.nccl in EXPECTED for _, slot in SLOTS)


@pytest.fixture(scope="module")
def nccl_group():
    torch.cuda.set_device(0)
    dist.init_process_group("nccl", store=dist.HashStore(), rank=0, world_size=1)
    yield
    dist.destroy_process_group()


def _tensor(values: torch.Tensor, transposed: bool) -> torch.Tensor:
    """A (6, 4) CUDA tensor holding `values`: made as the transpose of a (4, 6) buffer, or
    contiguous."""
    if transposed:
        return values.t().contiguous().t()
    return values.clone()


def _memory_order(t: torch.Tensor) -> torch.Tensor:
    """The elements of a dense tensor in the order they lie in memory."""
    return t.as_strided((t.numel(),), (1,))


def _outcome(op: str, position: int) -> str:
    roles, call = CALLS[op]
    source = torch.arange(24, dtype=torch.float32, device="cuda").reshape(6, 4)
    args = []
    for where, role in enumerate(roles):
        values = source if role != "out" else torch.full_like(source, -1.0)
        args.append(_tensor(values, transposed=where == position))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            call(*args)
        except (RuntimeError, ValueError) as error:
            if "contiguous" not in str(error):
                raise
            return "raises"
    torch.cuda.synchronize()
    destination = args[roles.index("out") if "out" in roles else 0]
    if torch.equal(destination, source):
        return "correct"
    if roles[0] != "both" and bool((destination == -1).all()):
        return "not written"
    read = args[roles.index("in")] if "in" in roles else destination
    if roles[position] == "out" or roles[position] == "both":
        moved = torch.equal(_memory_order(destination), source.flatten())
    else:
        moved = torch.equal(destination.flatten(), _memory_order(read))
    return "memory order" if moved else f"other values: {destination.tolist()}"


@needs_nccl
@pytest.mark.parametrize("op, slot", SLOTS, ids=[f"{op}-{s.keyword}" for op, s in SLOTS])
def test_nccl_does_what_the_table_says(nccl_group, op, slot):
    if slot.nccl in SINCE_2_11 and TORCH < (2, 11):
        pytest.skip(f"the table gives torch 2.11's behaviour; this is torch {torch.__version__}")
    assert _outcome(op, slot.position) == EXPECTED[slot.nccl], (op, slot.keyword, slot.nccl)
