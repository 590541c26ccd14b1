"""The op table (contiglint/layout/model/op_transfers.py) against real torch.

Every entry of `op_transfers.TABLE` runs, spelling by spelling (method, attribute, function, nn
module), on generated shapes, layouts and dtypes; each input is built twice (a torch tensor and its
abstract twin made with the table's own transfers) and the entry's prediction must never
contradict torch: CONTIGUOUS means `is_contiguous()`, PERMUTED means dense and non-contiguous,
STRIDED non-dense and non-overlapping, BROADCAST overlapping; UNKNOWN predicts nothing and is
counted. An entry no recipe can run must say why in its `untested` field.

Each entry runs on 12 drawn cases (`CONTIGLINT_OP_EXAMPLES=N` draws N); `--torch-device cuda`
runs them on the GPU (benchmarks/gpu_check.sh).
"""
from __future__ import annotations

import os

import pytest
import torch
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

from contiglint.layout.model import op_transfers
from tests.op_cases import ENTRIES_RUN, STATS, compare, run
from tests.op_world import torch_function
from tests.op_recipes_compute import RECIPES as COMPUTE
from tests.op_recipes_nn import RECIPES as NN
from tests.op_recipes_views import RECIPES as VIEWS

RECIPES = {**VIEWS, **COMPUTE, **NN}

# spellings the table lists that no CPU-only run can execute, and why
NOT_RUNNABLE = {
    "cuda": "needs a CUDA device",
    "xpu": "needs an XPU device",
    "pin_memory": "needs an accelerator runtime",
    "retain_grad": "returns None",
    "torch.nn.SyncBatchNorm": "runs only on GPU with a process group",
}


def key(op: op_transfers.Op) -> str:
    return (op.methods or op.functions or op.modules)[0]


def spellings(op: op_transfers.Op) -> list[tuple[str, str]]:
    forms = [("attribute" if name in op_transfers.ATTRIBUTES else "method", name)
             for name in op.methods]
    forms += [("function", name) for name in dict.fromkeys(op.functions)]
    forms += [("module", name) for name in op.modules]
    return [(form, name) for form, name in forms if name not in NOT_RUNNABLE]


COVERED = [op for op in op_transfers.TABLE if key(op) in RECIPES]
PARAMS = [pytest.param(op, id=key(op)) for op in COVERED]


def test_every_entry_is_covered_or_says_why_not():
    missing = [key(op) for op in op_transfers.TABLE if key(op) not in RECIPES and not op.untested]
    assert not missing, f"entries with neither a case recipe nor an `untested` reason: {missing}"
    both = [key(op) for op in op_transfers.TABLE if key(op) in RECIPES and op.untested]
    assert not both, f"entries marked untested that the table test runs: {both}"


def test_every_spelling_exists_in_torch():
    """A misspelt name in the table would silently never match user code."""
    absent = []
    for op in op_transfers.TABLE:
        absent += [m for m in op.methods if not hasattr(torch.Tensor, m)]
        for name in op.functions + op.modules:
            try:
                torch_function(name)
            except AttributeError:
                absent.append(name)
    assert not absent, f"names the table lists that torch {torch.__version__} lacks: {absent}"


EXAMPLES = int(os.environ.get("CONTIGLINT_OP_EXAMPLES", "12"))


@pytest.mark.parametrize("op", PARAMS)
@settings(max_examples=EXAMPLES, derandomize=True, deadline=None, database=None,
          phases=(Phase.explicit, Phase.generate), suppress_health_check=list(HealthCheck))
@given(data=st.data())
def test_entry_agrees_with_torch(op, data):
    for form, name in spellings(op):
        case = RECIPES[key(op)](data.draw, form, name)
        real, model = run(case)
        if real is None:
            continue
        STATS["cases executed"] += 1
        wrong = compare(model, real)
        assert not wrong, (f"op table entry {key(op)!r} ({form} {name}) on {case.label()}:\n  "
                           + "\n  ".join(wrong))
    ENTRIES_RUN.add(key(op))


def test_zz_summary_of_what_ran():
    """Printed with -s (and by the terminal summary): how much of the table was executed."""
    if not ENTRIES_RUN:
        pytest.skip("run together with test_entry_agrees_with_torch")
    untested = [(key(op), op.untested) for op in op_transfers.TABLE if op.untested]
    lines = [f"op table: {len(ENTRIES_RUN)}/{len(op_transfers.TABLE)} entries executed, "
             f"{len(untested)} untested"]
    lines += [f"  untested {name}: {why}" for name, why in untested]
    lines += [f"  spelling not run {name}: {why}" for name, why in NOT_RUNNABLE.items()]
    lines += [f"  {what}: {count}" for what, count in sorted(STATS.items())]
    print("\n" + "\n".join(lines))
    predictions = sum(v for k, v in STATS.items() if k.startswith("predictions:"))
    unknown = STATS["predictions: UNKNOWN"]
    assert unknown < predictions / 3, f"{unknown}/{predictions} predictions were UNKNOWN"


def test_tensor_inplace_methods_are_torch_tensor_methods():
    """The in-place method list is torch's own: every name is a Tensor method ending in `_`,
    and every such method of torch.Tensor is listed (or exempt on purpose)."""
    from contiglint.catalogue.inplace import NOT_WRITES as INPLACE_EXEMPT
    from contiglint.catalogue.inplace import TENSOR_METHODS as TENSOR_INPLACE_METHODS

    torch_names = {n for n in dir(torch.Tensor) if n.endswith("_") and not n.startswith("_")}
    assert TENSOR_INPLACE_METHODS <= torch_names
    assert torch_names - INPLACE_EXEMPT <= TENSOR_INPLACE_METHODS
