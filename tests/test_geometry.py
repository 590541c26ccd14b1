"""The stride-geometry model against torch, on random walks of view and copy ops.

Each walk starts from a contiguous tensor of literal shape and applies random transposes,
permutes, narrows, selects, stepped slices, unsqueezes, squeezes, expands, views, reshapes,
flattens, contiguous() and clone() both in torch and through the op table's transfers; after
every step the abstract kind must agree with torch (contiguous / permuted / strided /
overlapping), which `op_world.method_step` and `index_step` check. Before every step the walk
also asks `view_verdict` about a random regrouping of the current shape: a verdict of "raises"
or "ok" must never be contradicted by torch's `.view()` ("likely"/"unknown" commit to nothing).
"""
from __future__ import annotations

from collections import Counter

import pytest
import torch
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

from contiglint.layout.model.sizes import literal
from contiglint.layout.model.view_verdict import view_verdict
from tests.op_recipes_views import _view_target
from tests.op_world import index_step, method_step, twins

VERDICTS: Counter = Counter()


def _dim(draw, rank: int) -> int:
    return draw(st.integers(-rank, rank - 1))


def step(draw, x):
    """One random op applied in both worlds (the op's agreement is checked as it is made)."""
    shape, rank = tuple(x.real.shape), x.real.dim()
    choices = ["transpose", "permute", "narrow", "slice", "unsqueeze", "view", "reshape",
               "flatten", "contiguous", "clone"]
    choices += ["select"] if rank >= 2 else []
    choices += ["squeeze"] if rank >= 2 and 1 in shape else []
    choices += ["expand"] if 1 in shape else []
    op = draw(st.sampled_from(choices))
    if op == "transpose":
        return method_step(x, "transpose", _dim(draw, rank), _dim(draw, rank))
    if op == "permute":
        return method_step(x, "permute", *draw(st.permutations(range(rank))))
    if op == "narrow":
        d = _dim(draw, rank)
        start = draw(st.integers(0, shape[d] - 1))
        return method_step(x, "narrow", d, start, draw(st.integers(1, shape[d] - start)))
    if op == "slice":
        d = draw(st.integers(0, rank - 1))
        start = draw(st.integers(0, shape[d] - 1))
        return index_step(x, d, slice(start or None, None, draw(st.integers(1, 3))))
    if op == "select":
        d = _dim(draw, rank)
        return method_step(x, "select", d, draw(st.integers(0, shape[d] - 1)))
    if op == "unsqueeze":
        return method_step(x, "unsqueeze", draw(st.integers(-rank - 1, rank)))
    if op == "squeeze":
        return method_step(x, "squeeze", draw(st.sampled_from(
            [i for i, s in enumerate(shape) if s == 1])))
    if op == "expand":
        return method_step(x, "expand", *[draw(st.integers(1, 3)) if s == 1 else s
                                          for s in shape])
    if op in ("view", "reshape"):
        target = _view_target(draw, shape)
        if op == "view":
            try:
                x.real.view(target)
            except RuntimeError:
                return x
        return method_step(x, op, *target)
    if op == "flatten":
        start = draw(st.integers(0, rank - 1))
        return method_step(x, "flatten", start, draw(st.integers(start, rank - 1)))
    return method_step(x, op)


def check_view_verdict(draw, x) -> None:
    target = _view_target(draw, tuple(x.real.shape))
    verdict = view_verdict(x.model, [literal(s) if s != -1 else "-1" for s in target])
    try:
        x.real.view(target)
        raised = False
    except RuntimeError:
        raised = True
    VERDICTS[verdict] += 1
    where = f"{x.recipe} {tuple(x.real.shape)} stride {x.real.stride()} .view({target})"
    assert verdict != "raises" or raised, f"view_verdict says raises, torch views: {where}"
    assert verdict != "ok" or not raised, f"view_verdict says ok, torch raises: {where}"


@settings(max_examples=300, derandomize=True, deadline=None, database=None,
          phases=(Phase.explicit, Phase.generate), suppress_health_check=list(HealthCheck))
@given(data=st.data())
def test_random_walks_agree_with_torch(data):
    x = data.draw(twins(known=True, layouts=("contiguous",), max_size=4))
    for _ in range(data.draw(st.integers(1, 6))):
        check_view_verdict(data.draw, x)
        x = step(data.draw, x)
        if x.real.numel() > 4096:
            break


def test_zz_view_verdicts_were_exercised():
    if not VERDICTS:
        pytest.skip("run together with test_random_walks_agree_with_torch")
    print(f"\nview verdicts: {dict(VERDICTS)}")
    assert VERDICTS["raises"] and VERDICTS["ok"], dict(VERDICTS)


def test_walks_use_real_torch():
    """Guard: the walk helpers really execute torch ops (not the model twice)."""
    x = twins(known=True, shape=(2, 3), layouts=("contiguous",)).example()
    y = method_step(x, "transpose", 0, 1)
    assert isinstance(y.real, torch.Tensor) and not y.real.is_contiguous()
