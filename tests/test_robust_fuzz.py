"""Fuzzing the linter and the fixer: no input makes contiglint fail internally, and every fix
parses, removes what it fixed and is stable (the oracle is `tests.fuzz_inputs.problems`).

Three sources of input, all seeded so a failure reproduces: mutated windows of the fixtures
and of realistic model code embedded in tests/fuzz_inputs.py; random programs made of tensor
layout operations (hypothesis); arbitrary Python from the grammar (hypothesmith). The three
fuzzers are marked slow (CI runs them, `python -m pytest --run-slow`): their counts take
minutes of CPU; set CONTIGLINT_FUZZ_EXAMPLES=1000 for a run ten times longer (the variable
scales every count by value/100).
"""
from __future__ import annotations

import random

import hypothesmith
import pytest
from hypothesis import HealthCheck, given, seed, settings, strategies as st

from contiglint.engine import parse
from contiglint.settings import Settings
from tests.fuzz_inputs import examples, mutate, problems, seed_programs, unsettled

MUTATED = examples(2000)
LAYOUT_PROGRAMS = examples(300)
GRAMMAR_PROGRAMS = examples(150)


def window(text: str, rng: random.Random) -> str:
    """A run of 5 to 60 lines of a seed, with torch imported: small inputs, many shapes."""
    lines = text.splitlines(keepends=True)
    start = rng.randrange(max(1, len(lines) - 5))
    while start > 0 and lines[start][:1] in " \t\n" and rng.random() < 0.8:
        start -= 1  # mostly start at a statement of the outermost level, so more parse
    return "import torch\n" + "".join(lines[start:start + rng.randint(5, 60)])


@pytest.mark.slow
def test_mutated_real_code_never_breaks_the_linter_or_the_fixer():
    seeds = seed_programs()
    names = sorted(seeds)
    rng = random.Random(20260611)
    failures = []
    for number in range(MUTATED):
        name = rng.choice(names)
        base = seeds[name] if rng.random() < 0.1 else window(seeds[name], rng)
        text = mutate(base, rng)
        for _ in range(4):  # mostly keep mutants that parse: they reach the analysis
            if parse(text, "m.py")[1] is None or rng.random() < 0.2:
                break
            text = mutate(base, rng)
        found = problems(text)
        if found:
            failures.append(f"#{number} (mutant of {name}): {found[0]}\n{text}")
    assert not failures, f"{len(failures)} of {MUTATED} inputs failed; first:\n{failures[0]}"


# --- generated layout programs ----------------------------------------------------------------
NAMES = st.sampled_from(["x", "y", "z", "self.w", "q"])
SHAPES = st.sampled_from(["2, 3, 4", "4, 6", "2, 3, 4, 5", "1", "8"])
SOURCES = st.one_of(
    SHAPES.map(lambda s: f"torch.randn({s})"),
    SHAPES.map(lambda s: f"torch.zeros({s}).to(memory_format=torch.channels_last)"),
    NAMES)
OPS = st.sampled_from([
    ".transpose(0, 1)", ".transpose(1, 2)", ".permute(2, 0, 1)", ".permute(0, 2, 3, 1)", ".t()",
    ".mT", ".T", "[:, ::2]", "[..., 1:]", "[0]", "[None]", ".narrow(1, 0, 2)",
    ".expand(4, -1, -1)", ".expand_as(y)", ".unsqueeze(0)", ".squeeze()", ".flatten(1)",
    ".contiguous()", ".clone()", ".reshape(-1)", ".view(-1)", ".view(2, -1)", ".view(torch.int8)",
    ".softmax(-1)", ".sort(-1)[0]", ".to('cuda')", ".cuda()", ".cpu()", ".unfold(0, 2, 1)",
    ".chunk(2)[1]", ".split(1, 0)[0]", ".unbind(0)[0]", ".movedim(0, -1)",
    ".as_strided((2,), (1,))",
    " + 1", ".add_(1)", ".float()", ".detach()"])
SINKS = st.sampled_from([
    "{v}.view(-1)", "{v}.view(2, 12)", "{v}.data_ptr()", "{v}.untyped_storage()", "{v}.add_(1)",
    "{v}.cuda()", "{v}.to('cuda')", "torch.save({v}, 'f.pt')", "torch.jit.trace(m, {v})",
    "torch.distributed.all_reduce({v})", "self.register_buffer('b', {v})",
    "torch.nn.Parameter({v})", "{v}[0] = 1", "torch.from_numpy({v}.numpy())", "{v}.copy_(z)",
    "kernel[grid]({v}, n)", "{v}.is_contiguous()", "{v}.stride()"])


@st.composite
def layout_statement(draw, depth: int = 0):
    target = draw(NAMES)
    value = draw(SOURCES) + "".join(draw(st.lists(OPS, max_size=4)))
    kind = draw(st.integers(0, 9 if depth < 2 else 5))
    if kind <= 3:
        return [f"{target} = {value}"]
    if kind == 4:
        return [draw(SINKS).format(v=value)]
    if kind == 5:
        return [f"{target} += {value}" if draw(st.booleans()) else f"return {value}"]
    body = draw(st.lists(layout_statement(depth + 1), min_size=1, max_size=3))
    inner = ["    " + line for block in body for line in block]
    header = draw(st.sampled_from([
        "if {v}.is_contiguous():", "for i in range(3):", "while not {v}.is_contiguous():",
        "with torch.no_grad():", "if cond:", "try:"])).format(v=draw(NAMES))
    tail = ["except Exception:", "    pass"] if header == "try:" else \
        ["else:", "    x = x.t()"] if header == "if cond:" else []
    return [header] + inner + tail


@st.composite
def layout_program(draw):
    lines = ["import torch", "import torch.distributed", "import triton", "",
             "@triton.jit", "def kernel(p, n):", "    pass", ""]
    for number in range(draw(st.integers(1, 3))):
        body = [line for block in draw(st.lists(layout_statement(), min_size=1, max_size=6))
                for line in block]
        params = draw(st.sampled_from(["x", "x, y", "self, x", "x, y=None, z=None", "*x"]))
        lines += [f"def f{number}({params}):"] + ["    " + line for line in body] + [""]
    if draw(st.booleans()):
        lines += ["class M(torch.nn.Module):", "    def forward(self, x):",
                  "        y = x.transpose(1, 2)", "        return f0(y)", ""]
    calls = draw(st.lists(st.sampled_from(
        ["f0(torch.randn(2, 3, 4).transpose(1, 2))", "f0(torch.randn(4, 6))",
         "M()(torch.randn(2, 3, 4))", "y = f0(x)"]), max_size=3))
    return "\n".join(lines + ["x = torch.randn(2, 3, 4).permute(2, 0, 1)"] + calls) + "\n"


@pytest.mark.slow
@seed(6)
@settings(max_examples=LAYOUT_PROGRAMS, deadline=None, database=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(layout_program())
def test_generated_layout_programs(text):
    assert problems(text) == []


@pytest.mark.slow
@seed(7)
@settings(max_examples=GRAMMAR_PROGRAMS, deadline=None, database=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much,
                                 HealthCheck.data_too_large])
@given(hypothesmith.from_grammar())
def test_arbitrary_python_from_the_grammar(text):
    assert problems("import torch\n" + text) == []


CHANNELS_LAST_RAW_MEMORY = """\
import torch


def pointer(images):
    y = images.to(memory_format=torch.channels_last)
    return y.numpy().ctypes.data
"""


def test_ctg106_and_ctg110_fixes_settle():
    """CTG106 binds `y_contig = y.contiguous()` for raw memory; CTG110 must not turn that copy
    into a channels_last one (which CTG106 would flag again, for ever)."""
    assert unsettled(CHANNELS_LAST_RAW_MEMORY, None, "m.py", Settings()) == []
