"""Witnesses: the concrete sizes a default-mode finding names, held to real torch.

* torch's rules as plain Python (layout/model/concrete.py) agree with torch on generated sizes
  and strides;
* every witness the search finds fails in torch, and a view the model proves raising on
  literal sizes always gets one;
* every witness of every finding on the repository's programs replays failing in torch;
* a finding without a witness (an assumed rank, a guess) is strict-mode only, and the witness
  travels in JSON, SARIF, the text note and the cache.
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
from contiglint.layout.model.concrete import dtype_view_error, is_contiguous, view_strides
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


WITNESSED_CODES = ("CTG101", "CTG106", "CTG107", "CTG114")


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

NAMED_DIMS = """import torch


def f(x):
    B = x.size(0)
    N = x.size(1)
    C = x.size(2)
    D = x.size(3)
    return x.permute(1, 2, 3, 0).view(N, -1)
"""


def test_a_witness_names_the_input_sizes_the_code_reads():
    """x's geometry is only assumed, but the code reads x.size(i): the permuted tensor's dims
    are those sizes, so the witness gives values to x's sizes (not to sizes of its own that
    no input could give), and f raises on a tensor of exactly those sizes."""
    [finding] = lint_source(NAMED_DIMS, "m.py", Settings(select=("CTG101",))).findings
    values = dict(finding.witness.values)
    assert set(values) == {f"x.size({i})" for i in range(4)}
    namespace: dict = {}
    exec(NAMED_DIMS, namespace)
    x = torch.randn(*(values[f"x.size({i})"] for i in range(4)))
    with pytest.raises(RuntimeError, match=finding.witness.error):
        namespace["f"](x)

DIAGONAL = """import torch


def f(B, N, C, D):
    x = torch.randn(B, N, C, D)
    return x.diagonal(0, 3, 0).view(torch.float64)
"""


def test_a_diagonal_of_unrelated_sizes_is_witnessed_by_those_sizes():
    """The diagonal of dims of sizes B and D has min(B, D) elements: the witness chooses B and
    D (not the diagonal's length apart from them), and f raises at those sizes."""
    [finding] = lint_source(DIAGONAL, "m.py", Settings(select=("CTG101",))).findings
    values = dict(finding.witness.values)
    assert set(values) <= {"B", "N", "C", "D"}
    namespace: dict = {}
    exec(DIAGONAL, namespace)
    sizes = [values.get(name, 3) for name in "BNCD"]
    with pytest.raises(RuntimeError, match="stride"):
        namespace["f"](*sizes)

FLATTENED = """import torch


def f(B, N):
    x = torch.randn(B, N)
    flat = x.reshape(-1)
    wide = torch.broadcast_to(flat.unsqueeze(1), (flat.size(0), 3))
    return wide.view(-1)
"""


def test_a_wildcard_of_symbolic_sizes_is_their_quotient():
    """`(B, N).reshape(-1)` is (B*N,): the expanded tensor built from `flat.size(0)` is
    (B*N, 3), so the witness names B and N (inputs f takes), not `flat.size(0)`, which no
    input sets on its own, and f raises at those sizes."""
    [finding] = lint_source(FLATTENED, "m.py", Settings(select=("CTG101",))).findings
    values = dict(finding.witness.values)
    assert set(values) == {"B", "N"}
    namespace: dict = {}
    exec(FLATTENED, namespace)
    with pytest.raises(RuntimeError, match=finding.witness.error):
        namespace["f"](values["B"], values["N"])
    wide = torch.broadcast_to(torch.randn(values["B"] * values["N"], 1), (values["B"] * values["N"], 3))
    assert tuple(finding.witness.sizes) == tuple(wide.shape)
    assert tuple(finding.witness.strides) == wide.stride()


DIAGONALS = [
    ("x = torch.randn(B, N, C)", "x.diagonal(0, 2, 1).view(-1)"),
    ("x = torch.randn(B, N, C, D)", "x.diagonal(0, 3, 2).view(B, -1)"),
    ("x = torch.randn(B, N, C, D)", "x.diagonal(0, 1, 3).view(B * C, -1)"),
    ("x = torch.randn(B, N, C, D)", "x.diagonal(0, 0, 1).view(-1)"),
]


@pytest.mark.parametrize("make, use", DIAGONALS)
def test_a_diagonal_is_witnessed_at_its_real_strides(make, use):
    """A diagonal's stride is the sum of the strides of the two dims it walks, so whether it
    merges with a neighbour depends on the sizes ((B, N, C).diagonal(0, 2, 1) has strides
    (N*C, C+1): at N=4, C=3 they merge). Every witness is the tensor torch makes at the sizes
    it names, and the view raises there."""
    source = f"import torch\n\n\ndef f(B, N, C, D=1):\n    {make}\n    return {use}\n"
    findings = lint_source(source, "m.py", Settings(select=("CTG101",))).findings
    assert findings, source
    for finding in findings:
        values = dict(finding.witness.values)
        sizes = {name: values.get(name, 3) for name in "BNCD"}
        x = torch.randn(*[sizes[n] for n in make[make.index("(") + 1:-1].split(", ")])
        diagonal = eval(use.split(".view(")[0], {"x": x})
        assert (tuple(diagonal.shape), diagonal.stride()) == \
            (finding.witness.sizes, finding.witness.strides), finding.witness.describe()
        run: dict = {}
        exec(source, run)
        with pytest.raises(RuntimeError, match=finding.witness.error):
            run["f"](**sizes)


CONCATENATED = """import torch


def f(B, N, C):
    x = torch.randn(B, N, C)
    doubled = torch.cat([x, x], 0)
    return doubled.movedim(-2, 0).data_ptr()
"""


def test_the_joined_dim_of_a_cat_of_equal_terms_is_their_sum():
    """cat([x, x]) of B rows has 2*B: the raw read's witness names B, N and C (not the size
    of the joined dim, which is never odd), and the tensor it names is the one torch makes."""
    [finding] = lint_source(CONCATENATED, "m.py", Settings(select=("CTG106",))).findings
    values = dict(finding.witness.values)
    assert set(values) == {"B", "N", "C"}
    x = torch.randn(values["B"], values["N"], values["C"])
    moved = torch.cat([x, x], 0).movedim(-2, 0)
    assert (tuple(moved.shape), moved.stride()) == (finding.witness.sizes,
                                                    finding.witness.strides)
    assert not moved.is_contiguous()


CUT = """import torch


def f(B, N, C):
    x = torch.randn(B, N, C)
    return x[:, 1:].view(B * (N - 1), C)


def g(B, N, C):
    x = torch.randn(B, N, C)
    return x[::2, :-1].transpose(0, 1).data_ptr()
"""


def test_a_cut_of_a_symbolic_dim_is_sized_as_the_code_spells_it():
    """x[:, 1:] of N rows has N - 1, x[::2] of B has (B + 1) // 2: the view into
    B * (N - 1) rows is matched against them (it merges the cut dim and raises), and both
    witnesses name the inputs B, N, C only. Each replays under torch: the view raises, the raw
    read's tensor is the one torch makes and is not contiguous."""
    found = {f.code: f for f in lint_source(CUT, "m.py",
                                             Settings(select=("CTG101", "CTG106"))).findings}
    assert set(found) == {"CTG101", "CTG106"}
    namespace: dict = {}
    exec(CUT, namespace)
    view = dict(found["CTG101"].witness.values)
    assert set(view) <= {"B", "N", "C"}
    with pytest.raises(RuntimeError, match=found["CTG101"].witness.error):
        namespace["f"](*(view.get(n, 3) for n in "BNC"))
    raw = found["CTG106"].witness
    values = dict(raw.values)
    assert set(values) <= {"B", "N", "C"}
    x = torch.randn(*(values.get(n, 3) for n in "BNC"))
    made = x[::2, :-1].transpose(0, 1)
    assert (tuple(made.shape), made.stride()) == (raw.sizes, raw.strides)
    assert not made.is_contiguous()


STEPPED = """import torch


def f(B, N, C):
    x = torch.randn(B, N, C)
    v = x[..., ::2]
    return v.view(1, B, N * v.size(2))
"""


def test_a_stepped_dim_is_built_from_the_extent_and_step_its_size_names():
    """x[..., ::2] of C has (C + 1) // 2 elements at stride 2: an even C keeps every other
    element of whole rows, so N and the stepped dim still merge and the view works; the
    witness builds its tensor from C itself (not from 2n - 1 elements), so it names an odd C,
    and the tensor it shows is the one torch makes."""
    [finding] = lint_source(STEPPED, "m.py", Settings(select=("CTG101",))).findings
    witness = finding.witness
    values = dict(witness.values)
    assert set(values) <= {"B", "N", "C"} and values.get("C", 3) % 2 == 1
    args = [values.get(n, 3) for n in "BNC"]
    made = torch.randn(*args)[..., ::2]
    assert (tuple(made.shape), made.stride()) == (witness.sizes, witness.strides)
    namespace: dict = {}
    exec(STEPPED, namespace)
    with pytest.raises(RuntimeError, match=witness.error):
        namespace["f"](*args)
    namespace["f"](args[0], args[1], 4)  # an even C: the view works


OWN_SIZE = """import torch


def f(x):
    B = x.size(0)
    N = x.size(1)
    C = x.size(2)
    v = torch.movedim(x.narrow(0, 0, 1), -1, -2)
    return v.view(v.size(0), -1)
"""


def test_a_view_to_the_tensors_own_size_reads_it_from_the_geometry():
    """`v.view(v.size(0), -1)` where the code leaves v's rank open: at the least rank the
    witness is built at, v.size(0) is v's dim 0 (narrowed to 1), not a value of its own; the
    witness names x's sizes alone, and x of those sizes makes the view raise."""
    [finding] = lint_source(OWN_SIZE, "m.py", Settings(select=("CTG101",))).findings
    values = dict(finding.witness.values)
    assert set(values) <= {"x.size(0)", "x.size(1)", "x.size(2)"}
    namespace: dict = {}
    exec(OWN_SIZE, namespace)
    with pytest.raises(RuntimeError, match=finding.witness.error):
        namespace["f"](torch.randn(*(values.get(f"x.size({i})", 3) for i in range(3))))


LISTED = """import torch


def f(B, N):
    x = torch.randn(B, N)
    y = torch.matmul(x, x.mT).clone()
    return y.split_with_sizes([1, B - 1], 1)[-1].data_ptr()
"""


def test_a_listed_piece_size_is_the_size_the_code_names():
    """split_with_sizes([1, B - 1]) of a (B, B) tensor: the last piece has B - 1 columns, not
    a size of its own, so the raw read's witness is the piece torch makes for that B."""
    [finding] = lint_source(LISTED, "m.py", Settings(select=("CTG106",))).findings
    values = dict(finding.witness.values)
    assert set(values) <= {"B", "N"}
    b = values.get("B", 3)
    x = torch.randn(b, values.get("N", 3))
    piece = torch.matmul(x, x.mT).clone().split_with_sizes([1, b - 1], 1)[-1]
    assert (tuple(piece.shape), piece.stride()) == (finding.witness.sizes,
                                                      finding.witness.strides)
    assert not piece.is_contiguous()


UNSHOWN_RANK = """import torch


def product(x):
    B = x.size(0)
    N = x.size(1)
    return (x @ x.mT).permute(1, 0).data_ptr()


def stacked(x):
    B = x.size(0)
    N = x.size(1)
    return torch.permute(torch.stack([x, x], 0), (1, 2, 0)).data_ptr()
"""


def test_a_product_or_stack_of_tensors_of_unshown_rank_has_the_shape_of_the_least_rank():
    """x is read as (B, N) and its rank is not shown, but the permute after the product (or
    the stack) shows it: a 2-D product has 2-D operands, so it is (B, B) there, and the stack
    is (2, B, N). Each witness names x's sizes only, and the tensor it names is torch's."""
    findings = lint_source(UNSHOWN_RANK, "m.py", Settings(select=("CTG106",))).findings
    assert [f.line for f in findings] == [7, 13]
    for finding, make in zip(findings, (lambda x: (x @ x.mT).permute(1, 0),
                                        lambda x: torch.stack([x, x], 0).permute(1, 2, 0))):
        values = dict(finding.witness.values)
        assert set(values) <= {"x.size(0)", "x.size(1)"}, values
        x = torch.randn(values.get("x.size(0)", 3), values.get("x.size(1)", 3))
        made = make(x)
        assert (tuple(made.shape), made.stride()) == (finding.witness.sizes,
                                                      finding.witness.strides)
        assert not made.is_contiguous()


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


RECURRENT = '''
import torch
from torch import nn


def lstm_states(x):
    rnn = nn.LSTM(4, 6, num_layers=2, bidirectional=True, batch_first=True)
    _, (h, c) = rnn(x)
    flat = c.view(-1)
    return h.transpose(0, 1).view(x.size(0), -1)


def gru_state(x):
    rnn = nn.GRU(4, 6, num_layers=2, bidirectional=True)
    _, h = rnn(x)
    flat = h.view(-1)
    return h.transpose(0, 1).view(x.size(1), -1)


def main():
    lstm_states(torch.randn(3, 5, 4))
    gru_state(torch.randn(5, 3, 4))
'''


@pytest.mark.parametrize("cls", [torch.nn.LSTM, torch.nn.GRU, torch.nn.RNN])
@pytest.mark.parametrize("batch_first", [True, False])
def test_recurrent_states_are_contiguous_3d_and_their_transposed_view_is_witnessed(
        cls, batch_first):
    """The catalogue's fact (transfer.recurrent): a batched input gives a contiguous
    (layers * directions, B, H) state; the engine witnesses the view that merges across it."""
    rnn = cls(4, 6, num_layers=2, bidirectional=True, batch_first=batch_first)
    x = torch.randn(3, 5, 4) if batch_first else torch.randn(5, 3, 4)
    _, hidden = rnn(x)
    for state in hidden if isinstance(hidden, tuple) else (hidden,):
        assert state.dim() == 3 and state.is_contiguous() and state.shape[1] == 3
        with pytest.raises(RuntimeError, match="view size is not compatible"):
            state.transpose(0, 1).view(3, -1)
    findings = lint_source(RECURRENT, "rnn.py", Settings(select=("CTG101",))).findings
    lines = RECURRENT.splitlines()
    assert [lines[f.line - 1].strip()[:30] for f in findings] == \
        ["return h.transpose(0, 1).view("] * 2
    assert all(replay(f.witness) is None for f in findings)


HELD_OBJECT = """import math
import torch
from torch import nn
from external_models import Encoder


class Interpolated(nn.Module):
    @classmethod
    def from_encoder(cls, source: Encoder):
        made = cls()
        made.pos_embedding = source.pos_embedding
        return made

    def forward(self, x):
        n = self.pos_embedding.shape[1] - 1
        side = int(math.sqrt(n))
        pos = self.pos_embedding[:, 1:]
        dim = x.shape[-1]
        pos = nn.functional.interpolate(
            pos.reshape(1, side, side, dim).permute(0, 3, 1, 2), scale_factor=2, mode="bicubic")
        return pos.permute(0, 2, 3, 1).view(1, -1, dim)


def run(encoder, x):
    return Interpolated.from_encoder(encoder)(x)
"""


def test_an_attribute_of_an_object_of_another_class_is_a_tensor_of_unknown_layout(monkeypatch):
    """`source: Encoder` (a class from elsewhere) holds tensors: `source.pos_embedding` is a
    tensor of unknown layout, not "not a tensor", so the interpolate of its NCHW-permuted
    reshape keeps the permuted (channels_last) layout and the view after permuting it back
    succeeds, as under torch. Taking the attribute for a non-tensor made the interpolate's
    result an unknown tensor assumed contiguous, and the view a witnessed finding."""
    encoder = type("Encoder", (), {})
    module = type(sys)("external_models")
    module.Encoder = encoder
    monkeypatch.setitem(sys.modules, "external_models", module)
    namespace: dict = {}
    exec(HELD_OBJECT, namespace)
    held = encoder()
    held.pos_embedding = torch.nn.Parameter(torch.randn(1, 10, 4))
    assert namespace["run"](held, torch.randn(2, 37, 4)).shape == (1, 36, 4)  # torch: no error
    settings = Settings(select=("CTG101",))
    assert lint_source(HELD_OBJECT, "m.py", settings).findings == []


RESHAPES = [  # ops on x = torch.randn(B, N, C, D), and a reshape target that copies for
    # generic sizes
    ("x.transpose(1, 2)", "B, C, N * D"),  # views, permuted, where D is 1
    ("x.transpose(1, 2)", "B, C * N, D"),  # views only where it is contiguous
    ("x.permute(1, 0, 3, 2)", "N, B, -1"),
    ("x.diagonal(0, 2, 3)", "-1"),  # views with holes where B and N are 1
    ("x[:, :, ::2]", "B, -1"),
    ("x.permute(0, 2, 3, 1)", "B, C * D, N"),
    ("x.permute(3, 2, 1, 0)", "-1"),
]


@pytest.mark.parametrize("ops, target", RESHAPES)
def test_a_reshape_is_proven_contiguous_only_where_torch_never_views_holes(ops, target):
    """`reshape_proven_contiguous` against torch on every size in 1..3: it says proven
    exactly when no size makes the reshape return a non-contiguous tensor, and the tensor
    its witness names is one whose view works and is not contiguous."""
    from contiglint.layout.flow.program import analyze_module
    from contiglint.layout.model.witness import (reshape_proven_contiguous,
                                                 view_with_holes_witness)
    from contiglint.source import SourceMap
    source = f"import torch\ndef f(B, N, C, D):\n    x = torch.randn(B, N, C, D)\n" \
             f"    v = {ops}\n    v.data_ptr()\n    v.view({target})\n"
    sinks = analyze_module(__import__("ast").parse(source), SourceMap(source))
    tensor = next(s for s in sinks if s.kind == "raw_memory").tensor
    shape = next(s for s in sinks if s.kind == "view").sizes
    assert tensor.geometry is not None
    holes = []
    for sizes in __import__("itertools").product((1, 2, 3), repeat=4):
        env = dict(zip("BNCD", sizes))
        x = torch.randn(*sizes)
        v = eval(ops, {"x": x})
        result = v.reshape(eval(f"({target},)", env))
        if not result.is_contiguous():
            holes.append(sizes)
    assert reshape_proven_contiguous(tensor.geometry, list(shape)) == (not holes), holes
    witness = view_with_holes_witness(tensor.geometry, list(shape))
    assert (witness is None) == (not holes)
    if witness is not None:
        assert replay(witness) is None
        torch.empty_strided(witness.sizes, witness.strides).view(witness.target)


MADE_SIZES = '''import torch


def decode(parts, k0, k1):
    kpt = torch.cat([p.view(p.size(0), k0 * (k1 + 2), -1) for p in parts], -1)
    spatial = kpt.shape[-1]
    kpt = kpt.view(kpt.size(0), k0, k1 + 2, spatial)[:, :, :-2, :]
    return kpt.view(kpt.size(0), k0 * k1, spatial)
'''


def test_a_size_an_op_made_is_witnessed_at_any_size_from_2():
    """`spatial` is the length of a cat, which no caller chooses: the witness holds at every
    size of it (and of the cat's batch) from 2, as torch shows for lengths that parts of
    several sizes give, and says so in its description and its JSON."""
    [finding] = lint_source(MADE_SIZES, "m.py", Settings(select=("CTG101",))).findings
    witness = finding.witness
    assert set(witness.any_size) == {"kpt.size(0)", "kpt.size(-1)"}
    assert "kpt.size(-1)=" in witness.describe() and "(or any size from 2)" in \
        witness.describe()
    assert Witness.from_json(witness.as_json()) == witness
    assert replay(witness) is None
    space: dict = {}
    exec(compile(MADE_SIZES, "m.py", "exec"), space)
    values = dict(witness.values)
    k0, k1 = values["k0"], values["k1"]
    for batch in (2, 3):
        for lengths in ((1, 1), (2, 1), (3,), (2, 2), (4, 3)):
            parts = [torch.randn(batch, k0 * (k1 + 2) * n) for n in lengths]
            with pytest.raises(RuntimeError, match="view size is not compatible"):
                space["decode"](parts, k0, k1)
