"""The layout model's exam: random tensor programs run under torch and through the engine.

A seeded sample of the programs of tests/generated/ (the long run is
benchmarks/generated_programs.py); every sink's engine verdict is compared with what torch did
(tests/generated/oracle.py defines a disagreement). Disagreement classes the model does not get
right yet are listed in OPEN, each with what is wrong and a program that shows it: that program
must still disagree in that class (a class whose witness agrees with torch is taken off the
list, or given a witness that still fails), and the sample must show no class outside OPEN.
The sample is the same on every machine: Hypothesis draws it from a fixed seed, and the test
extras pin Hypothesis, whose generation changes between releases. Below, the safe fixes the
programs run (tests/generated/fixes.py). One program per fixed class, run under torch the same
way, is in test_generated_model_facts.py, test_generated_sample_facts.py,
test_generated_dtype_facts.py, test_generated_sizes.py, test_generated_witnesses.py and
test_generated_conditions.py. The programs over leading dims the code never counts
(`*batch, C, D = x.shape`) have their sample and their hand-written cases in
test_lead_programs.py.
"""
from __future__ import annotations

import pytest
from hypothesis import HealthCheck, Phase, given, settings

from tests.generated import fixes
from tests.generated.cases import program, verdicts_of
from tests.generated.oracle import compare
from tests.generated.programs import programs

SAMPLE = 2000
UNKNOWN_RANK_SAMPLE = 800
SIZES2 = ((4, 5), (1, 5), (4, 1))


OPEN = {
    "claimed non-contiguous, torch contiguous": (
        "a step through a boolean mask's selection is called stepped where the mask keeps "
        "as few elements as the step makes one",
        program("literal", ("x = torch.randn(4)",),
                [("v0 = x.tensor_split(2, -1)[0]", "op", ""), ("v2 = v0[v0 == v0]", "op", ""),
                 ("v4 = v2[::2]", "op", ""), ("s = v4.data_ptr()", "probe", "v4")],
                (), 1, ((),), (4,))),
    "claimed contiguous, torch not": (
        "torch.stack of tensors whose only non-contiguity is in size-1 dims keeps their "
        "strides; the model calls the result contiguous",
        program("literal", ("x = torch.randn(2, 1, 2, 1)",),
                [("v0 = torch.movedim(x, -1, -3)", "op", ""),
                 ("v1 = torch.stack([v0, v0], 1)", "op", ""),
                 ("s2 = v1.data_ptr()", "probe", "v1")], (), 4, literal_shape=(2, 1, 2, 1))),
    "view ok, torch raises": (
        "the same stack: a view of it is called safe",
        program("literal", ("x = torch.randn(2, 1, 2, 1)",),
                [("v0 = torch.movedim(x, -1, -3)", "op", ""),
                 ("v1 = torch.stack([v0, v0], 1)", "op", ""),
                 ("s2 = v1.view(4, 1, 1, 2)", "view", "v1")], (), 4, literal_shape=(2, 1, 2, 1))),
}


@settings(max_examples=SAMPLE, derandomize=True, deadline=None, database=None,
          phases=(Phase.explicit, Phase.generate), suppress_health_check=list(HealthCheck))
@given(program=programs())
def test_generated_programs_agree_with_torch(program):
    _agrees_but_for(program, OPEN)


def _agrees_but_for(program, open_classes: dict) -> None:
    """The engine and torch agree on every sink of `program`, but for the classes still open."""
    _, found, _ = compare(program)
    new = [d for d in found if d.name not in open_classes]
    assert not new, "\n".join(f"{d.name} at line {d.line}: {d.detail}" for d in new) + \
        f"\n{program}"


# what the programs of unknown rank show that the model does not get right yet (as OPEN)
OPEN_UNKNOWN_RANK = {
    "wrong witness": (
        "a tensor whose sizes are the input's under another name (`torch.where(x > 0, x, 0.0)`, "
        "`x if p else x.contiguous()`) has them named by that name where an op fixes its "
        "rank (`v1.size(0)`), so a witness gives them values apart from x's own "
        "(`x.size(0)`), which no input gives",
        program("opaque", (), [("v1 = torch.where(x > 0, x, 0.0)", "op", ""),
                               ("v3 = torch.permute(v1, (1, 0,))", "op", ""),
                               ("s5 = v3.view(x.size(1) * x.size(0))", "view", "v3")],
                ("x",), 2, ((4, 5), (1, 5), (4, 3)))),
}


@settings(max_examples=UNKNOWN_RANK_SAMPLE, derandomize=True, deadline=None, database=None,
          phases=(Phase.explicit, Phase.generate), suppress_health_check=list(HealthCheck))
@given(program=programs(forms=("opaque",)))
def test_programs_of_unknown_rank_agree_with_torch(program):
    """The same, where the code never shows the input's rank (`def f(x)`, its sizes read as
    `x.size(i)` where an op needs one): torch runs it at the rank drawn, and a witness holds
    where torch fails at its sizes at some rank."""
    _agrees_but_for(program, OPEN_UNKNOWN_RANK)


@pytest.mark.parametrize("name, open_classes", [(name, OPEN) for name in sorted(OPEN)] +
                         [(name, OPEN_UNKNOWN_RANK) for name in sorted(OPEN_UNKNOWN_RANK)])
def test_open_classes_still_disagree(name, open_classes):
    _, witness = open_classes[name]
    _, found, ran = compare(witness)
    assert ran, f"torch ran no size assignment of\n{witness}"
    assert name in {d.name for d in found}, \
        f"the witness of {name!r} now agrees with torch: take the class off OPEN, or give it " \
        f"a witness that still disagrees\n{witness}"



# --- safe fixes (tests/generated/fixes.py) ------------------------------------------------------
EXPANDED = program("params", ("x = torch.randn(B, N)",),
                   [("v0 = x.unsqueeze(1).expand(-1, 3, -1)", "op", ""),
                    ("v1 = v0.contiguous()", "op", ""), ("s = v1.view(-1)", "view", "v1")],
                   ("B", "N"), 2, SIZES2)


def test_the_contiguous_copy_of_an_expanded_tensor_is_kept_and_the_program_agrees():
    # the contiguous copy is needed: CTG113 must not remove it (a safe fix that did raised)
    assert fixes.fixed_sources(EXPANDED) == {}
    assert verdicts_of(EXPANDED) == ["ok"]


def test_a_safe_fix_that_breaks_the_program_is_a_disagreement(monkeypatch):
    # the check itself: were the copy removed as a "safe" fix, the view would raise
    broken = EXPANDED.source().replace("v0.contiguous()", "v0")
    monkeypatch.setattr(fixes, "fixed_sources", lambda p: {"default": broken})
    assert [name for name, _ in fixes.fix_disagreements(EXPANDED)] == ["safe fix raises"]
    changed = EXPANDED.source().replace("s = v1.view(-1)", "s = v1.view(-1) * 2")
    monkeypatch.setattr(fixes, "fixed_sources", lambda p: {"default": changed})
    assert [name for name, _ in fixes.fix_disagreements(EXPANDED)] == ["safe fix changes values"]


def test_the_view_fix_keeps_the_values_of_a_view_that_runs():
    # v.view(-1) of a transpose is reported and fixed as .reshape(-1); where the view runs
    # (a size-1 dim), the reshape gives the same values
    p = program("params", ("x = torch.randn(B, N)",),
                [("v = x.t()", "op", ""), ("s = v.view(-1)", "view", "v")],
                ("B", "N"), 2, SIZES2)
    fixed = fixes.fixed_sources(p)
    assert fixed and all("v.reshape(-1)" in text for text in fixed.values())
    assert fixes.fix_disagreements(p) == []
