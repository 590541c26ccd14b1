"""Witnesses: the concrete sizes a default-mode finding names, held to real torch.

* torch's rules as plain Python (layout/model/concrete.py) agree with torch on generated sizes
  and strides;
* every witness the search finds fails in torch, and a view the model proves raising on
  literal sizes always gets one;
* every witness of every finding on the repository's programs replays failing in torch;
* a finding without a witness (an assumed rank, a guess) is strict-mode only, and the witness
  travels in JSON, SARIF, the text note and the cache.

How a witness sizes what the code shows is in tests/test_witness_shapes.py, and tensors from
other sources (recurrent states, other objects, sizes an op made) in
tests/test_witness_sources.py.
"""
from __future__ import annotations

import json
import math
import subprocess
import sys
from pathlib import Path

import pytest
import torch
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from contiglint.engine import lint_source
from contiglint.layout.model.concrete import (dtype_view_error, has_internal_overlap,
                                              is_contiguous, view_strides)
from contiglint.layout.model.sizes import literal
from contiglint.layout.model.stride_facts import strided
from contiglint.layout.model.view_verdict import view_verdict
from contiglint.layout.model.values import Tensor
from contiglint.layout.model.witness import (Witness, noncontiguous_witness, view_witness)
from contiglint.rules import all_rules
from contiglint.settings import Settings
from contiglint.findings import Finding
from contiglint.verify.verdicts import WITNESS_HOLDS, WRONG_WITNESS
from contiglint.verify.witnesses import replay, witness_verdicts

ROOT = Path(__file__).resolve().parents[1]
SETTINGS = settings(max_examples=400, deadline=None, derandomize=True,
                    suppress_health_check=[HealthCheck.too_slow])
DTYPES = {1: torch.uint8, 2: torch.int16, 4: torch.int32, 8: torch.int64}


@st.composite
def layouts(draw, min_rank=0):
    rank = draw(st.integers(min_rank, 4))
    sizes = draw(st.lists(st.sampled_from([1, 1, 2, 3, 4]), min_size=rank, max_size=rank))
    strides = draw(st.lists(st.sampled_from([0, 1, 2, 3, 4, 6, 8, 12, 24]), min_size=rank,
                            max_size=rank))
    return sizes, strides


@st.composite
def reshapes(draw, numel):
    """A shape of `numel` elements: numel's factors in a random grouping."""
    factors, rest, d = [], numel, 2
    while rest > 1:
        while rest % d:
            d += 1
        factors.append(d)
        rest //= d
    factors = draw(st.permutations(factors)) if factors else []
    shape, i = [], 0
    while i < len(factors):
        take = draw(st.integers(1, len(factors) - i))
        shape.append(math.prod(factors[i:i + take]))
        i += take
        if draw(st.booleans()):
            shape.append(1)
    return shape or [1] * draw(st.integers(0, 2))


@SETTINGS
@given(st.data())
def test_view_strides_is_torch_computestride(data):
    sizes, strides = data.draw(layouts())
    tensor = torch.empty_strided(sizes, strides)
    target = data.draw(reshapes(tensor.numel())) if tensor.numel() else sizes
    try:
        expected = tuple(tensor.view(target).stride())
    except RuntimeError as error:
        assert "view size is not compatible" in str(error)
        expected = None
    got = view_strides(sizes, strides, target)
    assert (got is None) == (expected is None), (sizes, strides, target, expected, got)
    if got is not None:  # a size-1 dim's stride is free: torch and the port may differ there
        assert [s for s, n in zip(got, target) if n != 1] == \
            [s for s, n in zip(expected, target) if n != 1]


@SETTINGS
@given(layouts(), st.sampled_from(sorted(DTYPES)), st.sampled_from(sorted(DTYPES)),
       st.integers(0, 3))
def test_is_contiguous_and_dtype_views_are_torchs(layout, itemsize, new_itemsize, offset):
    sizes, strides = layout
    tensor = torch.empty_strided(sizes, strides, dtype=DTYPES[itemsize])
    assert is_contiguous(sizes, strides) == tensor.is_contiguous()
    if sizes:
        storage = torch.empty(tensor.untyped_storage().nbytes() // itemsize + 8,
                              dtype=DTYPES[itemsize])
        tensor = storage.as_strided(sizes, strides, offset)
    try:
        tensor.view(DTYPES[new_itemsize])
        raised = None
    except RuntimeError as error:
        raised = str(error)
    error = dtype_view_error(sizes, strides, offset if sizes else 0, itemsize, new_itemsize)
    assert (error is None) == (raised is None), raised
    if error is not None:
        assert raised.startswith(error), (error, raised)  # the same check fails first


@SETTINGS
@given(layouts())
def test_internal_overlap_is_where_torchs_in_place_ops_raise(layout):
    sizes, strides = layout
    tensor = torch.empty_strided(sizes, strides)
    try:
        tensor.add_(1)
        raised = False
    except RuntimeError as error:
        assert "more than one element of the written-to tensor" in str(error)
        raised = True
    assert has_internal_overlap(sizes, strides) == raised


@SETTINGS
@given(st.data())
def test_every_view_witness_fails_in_torch_and_proven_views_have_one(data):
    """On literal layouts the model can express, a view it proves raising has a witness, and
    every witness it finds (for any target) is a tensor torch refuses to view so."""
    sizes, strides = data.draw(layouts(min_rank=2))
    geometry = strided(sizes, strides)
    if geometry is None:
        return
    numel = math.prod(sizes)
    target = data.draw(reshapes(numel))
    shape = [literal(n) for n in target]
    witness = view_witness(geometry, shape)
    verdict = view_verdict(Tensor.of(geometry, None), shape)
    if verdict == "raises":
        assert witness is not None, (sizes, strides, target)
    if witness is not None:
        assert replay(witness) is None, witness
        assert witness.sizes == tuple(sizes)
    contiguous = noncontiguous_witness(geometry)
    assert (contiguous is None) == torch.empty_strided(sizes, strides).is_contiguous()
    if contiguous is not None:
        assert replay(contiguous) is None


def test_symbolic_sizes_are_given_values_the_code_allows():
    """`(B, H, N, D)` transposed and viewed as `(B, N, 768)`: D is solved from the literal."""
    source = '''
import torch
def merge(x, B, N, H, D):
    y = x.reshape(B, H, N, D).transpose(1, 2)
    return y.view(B, N, 768)
'''
    settings = Settings(select=("CTG101",))
    [finding] = lint_source(source, "m.py", settings).findings
    witness = finding.witness
    values = dict(witness.values)
    assert values["H"] * values["D"] == 768 and witness.target == (values["B"], values["N"], 768)
    assert replay(witness) is None
    assert witness.describe().startswith("raises for B=")


def _repository_programs():
    for folder in ("fixtures", "examples", "tests/eval"):
        yield from sorted((ROOT / folder).rglob("*.py"))


def test_every_witness_on_the_repositorys_programs_fails_in_torch():
    settings = Settings(select=tuple(rule.code for rule in all_rules()))
    witnessed = wrong = 0
    for path in _repository_programs():
        text = path.read_text(encoding="utf-8")
        for finding in lint_source(text, str(path), settings).findings:
            if finding.witness is not None:
                witnessed += 1
                if replay(finding.witness) is not None:
                    wrong += 1
                    print(path, finding.line, finding.witness.describe())
    assert witnessed > 100 and wrong == 0


WITNESSED_CODES = ("CTG101", "CTG103", "CTG106", "CTG107", "CTG108", "CTG114")


def test_default_findings_of_the_proven_rules_carry_witnesses():
    settings = Settings(select=WITNESSED_CODES)
    missing = []
    for path in _repository_programs():
        text = path.read_text(encoding="utf-8")
        for finding in lint_source(text, str(path), settings).findings:
            if finding.code in WITNESSED_CODES and finding.witness is None and \
                    not _no_layout_to_witness(finding):
                missing.append(f"{path}:{finding.line} {finding.code}")
    assert not missing, missing


def _no_layout_to_witness(finding) -> bool:
    """CTG114 reports an autograd gradient (of a layout autograd decides) or a tensor of
    unknown layout handed to a checked guard, CTG106 a pointer into a temporary copy that is
    freed at once: claims about no layout of the code."""
    return finding.code == "CTG114" and ("gradient from autograd" in finding.message or
                                         "of unknown layout" in finding.message) or \
        finding.code == "CTG106" and "the pointer dangles" in finding.message


ASSUMED_RANK = '''
import torch
def merge(x, B: int, N: int, C: int):
    return x.transpose(1, 2).view(B, N, C)
'''


def test_a_view_on_an_assumed_rank_is_strict_only():
    """x's rank is not shown: at rank 3 the view may merge nothing, so no witness."""
    default = lint_source(ASSUMED_RANK, "m.py", Settings(select=("CTG101",))).findings
    strict = lint_source(ASSUMED_RANK, "m.py",
                         Settings(select=("CTG101",), strict=True)).findings
    assert default == [] and [f.code for f in strict] == ["CTG101"]
    assert strict[0].witness is None


SHAPE_NAME = """import torch


def f(x, batch, m, n):
    new_shape = batch + (m, n)
    return x.transpose(-1, -2).view(new_shape)
"""


def test_a_view_to_one_name_of_unknown_type_is_not_witnessed():
    """`x.view(new_shape)`: one name may be a whole shape (here the transposed tensor's own,
    which torch views without a copy), so it is no single size a witness could choose."""
    x = torch.randn(2, 3, 4)
    namespace: dict = {}
    exec(SHAPE_NAME, namespace)
    assert namespace["f"](x, (2,), 4, 3).shape == (2, 4, 3)  # torch: no error
    default = lint_source(SHAPE_NAME, "m.py", Settings(select=("CTG101",))).findings
    strict = lint_source(SHAPE_NAME, "m.py", Settings(select=("CTG101",), strict=True)).findings
    assert default == [] and [f.witness for f in strict] == [None]


def _cli(*args, cwd=ROOT):
    return subprocess.run([sys.executable, "-m", "contiglint", *args], capture_output=True,
                          text=True, cwd=str(cwd))


def test_the_witness_in_json_sarif_text_and_a_warm_cache(tmp_path):
    example = str(ROOT / "examples" / "attention.py")
    report = json.loads(_cli("--select", "CTG101", "--format", "json", "--no-cache",
                             example).stdout)
    [finding] = report
    witness = Witness.from_json(finding["witness"])
    assert witness.sizes == (2, 16, 8, 8) and witness.target == (2, 16, 64)
    assert replay(witness) is None
    assert any(r["message"] == f"witness: {witness.describe()}" for r in finding["related"])
    sarif = json.loads(_cli("--select", "CTG101", "--format", "sarif", "--no-cache",
                            example).stdout)
    [result] = sarif["runs"][0]["results"]
    assert result["properties"]["witness"] == finding["witness"]
    text = _cli("--select", "CTG101", "--format", "full", "--no-cache", example).stdout
    assert "witness: raises: (2, 16, 8, 8) with strides (1024, 8, 128, 1) viewed as " \
           "(2, 16, 64)" in text
    (tmp_path / "attention.py").write_text(Path(example).read_text(encoding="utf-8"))
    cold, warm = (json.loads(_cli("--select", "CTG101", "--format", "json", "attention.py",
                                  cwd=tmp_path).stdout) for _ in range(2))
    assert (tmp_path / ".contiglint_cache").is_dir()
    assert cold[0]["witness"] == warm[0]["witness"] == finding["witness"]


@pytest.mark.parametrize("source, code", [
    ("import torch\ndef f(x: torch.Tensor):\n    y = x.view(4, 6).t()\n    return y.data_ptr()\n",
     "CTG106"),
])
def test_a_raw_read_witness_is_a_non_contiguous_tensor(source, code):
    [finding] = lint_source(source, "m.py", Settings(select=(code,))).findings
    assert finding.witness.op == "contiguous" and finding.witness.sizes == (6, 4)
    assert replay(finding.witness) is None


def test_verify_fails_on_a_wrong_witness():
    """A witness whose tensor torch views without error is a failing verdict of `verify`."""
    holds = Witness("view", (), (2, 3), (1, 2), (6,), error="view size is not compatible")
    wrong = Witness("view", (), (2, 3), (3, 1), (6,), error="view size is not compatible")
    findings = [Finding("f.py", line, 1, line, 2, "CTG101", "m", witness=w)
                for line, w in ((1, holds), (2, wrong))]
    verdicts = witness_verdicts("f.py", findings)
    assert [(v.line, v.outcome, v.failing) for v in verdicts] == \
        [(1, WITNESS_HOLDS, False), (2, WRONG_WITNESS, True)]
    assert "did not raise" in verdicts[1].observed


TWO_CONTEXTS = """import torch


def merge(x):
    return x.view(x.size(0), 2, -1)


def g(y):
    return merge(y.transpose(1, 2))


def h():
    z = torch.randn(3, 4, 6)
    return merge(z.transpose(1, 2))
"""


def test_a_site_reached_in_several_contexts_shows_a_witness_where_one_has_it():
    """merge's view is reached from g (y of a rank the code never shows: no witness, strict
    only) and from h (literal sizes: a witness). Strict mode reports the site once; it
    showed g's finding, the first, without the witness that h's context has."""
    for strict in (False, True):
        [finding] = lint_source(TWO_CONTEXTS, "m.py",
                                Settings(select=("CTG101",), strict=strict)).findings
        assert finding.witness is not None and finding.witness.sizes == (3, 6, 4)
