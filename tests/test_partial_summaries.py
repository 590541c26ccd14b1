"""A project run makes the function passes of a module's contract summary only where they can
matter (layout/contracts/evidence.py): a module with no evidence of its own gets them once the
project's contracts require a function it names. Its findings are those of a run that makes
every summary whole, however many modules away from the evidence a wrapper is."""
from __future__ import annotations

import ast
import os
import textwrap
from pathlib import Path

import pytest

from contiglint import project_pass
from contiglint.layout.contracts.evidence import text_may_hold_evidence
from contiglint.layout.contracts.summary import summarize
from contiglint.prefilter import as_python_reads
from contiglint.config import Config
from contiglint.runner import RunOptions, run
from contiglint.settings import Settings

ROOT = Path(__file__).resolve().parent.parent
MODULES = {
    "__init__.py": "",
    "kernels.py": """
        import torch

        def fused(x):
            torch._check(x.is_contiguous())
            return x
    """,
    # each wrapper is one module further from the evidence: whole in a later round
    "wrap1.py": """
        from .kernels import fused

        def w1(x):
            return fused(x)
    """,
    "wrap2.py": """
        from .wrap1 import w1

        def w2(x):
            return w1(x) + 1
    """,
    "wrap3.py": """
        import torch
        from . import wrap2

        class Op(torch.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                return wrap2.w2(x)

            @staticmethod
            def backward(ctx, grad):
                return grad

        def w3(x):
            return Op.apply(x)
    """,
    # a check function holds no evidence itself: the module that calls it does
    "checks.py": """
        def ensure(cond, message):
            if not cond:
                raise ValueError(message)
    """,
    "guarded.py": """
        from .checks import ensure

        def g(x):
            ensure(x.is_contiguous(), "x")
            return x
    """,
    # an extension the module passes `.contiguous()` tensors: its other calls need them too
    "ext.py": """
        from . import _C

        def e(x):
            return _C.op(x.contiguous())

        def e2(y):
            return _C.op(y)
    """,
    "unrelated.py": """
        import torch

        def helper(x):
            return x.transpose(0, 1) * 2
    """,
    "model.py": """
        import torch
        from .wrap2 import w2
        from .wrap3 import w3
        from .guarded import g
        from .ext import e2

        def forward(h):
            a = w2(h.t())
            b = w3(h.t())
            c = g(h.t())
            d = e2(h.t())
            return a, b, c, d, w2(h)
    """,
}
# the transposed arguments of model.py's calls: lines 8-11
EXPECTED = [("model.py", line, "CTG114") for line in (8, 9, 10, 11)]


def write_project(tmp_path) -> str:
    package = tmp_path / "pkg"
    package.mkdir()
    for name, text in MODULES.items():
        (package / name).write_text(textwrap.dedent(text).lstrip())
    return str(package)


def findings(package: str, jobs: int, settings: Settings = Settings()) -> list:
    result = run([package], Config(settings=settings), RunOptions(jobs=jobs))
    assert not result.all_errors
    return [(os.path.basename(f.path), f.line, f.code, f.message) for f in result.findings]


@pytest.mark.parametrize("jobs", [1, 2])
def test_partial_summaries_find_what_whole_ones_find(tmp_path, monkeypatch, jobs):
    package = write_project(tmp_path)
    lazy = findings(package, jobs)
    assert [f[:3] for f in lazy] == EXPECTED
    assert "kernels.py:4" in lazy[0][3]  # the chain down to the guard, three modules away
    monkeypatch.setattr(project_pass, "lazy_summaries", lambda config: False)
    assert findings(package, jobs) == lazy


def test_only_modules_that_name_a_required_function_are_made_whole(tmp_path, monkeypatch):
    package = write_project(tmp_path)
    completed = []
    whole = project_pass.whole_summary

    def spy(source, options):
        completed.append(os.path.basename(source.path))
        return whole(source, options)

    monkeypatch.setattr("contiglint.runner.whole_summary", spy)
    assert [f[:3] for f in findings(package, 1)] == EXPECTED
    # model.py names w2, w3, g and e2; the wrappers name the function below them; checks.py,
    # whose summary was made from its text, defines a function that guarded.py passes a
    # layout check to: whether it is a check function needs its syntax; unrelated.py is none
    assert sorted(completed) == ["checks.py", "model.py", "wrap1.py", "wrap2.py", "wrap3.py"]


def test_a_module_without_evidence_or_sink_tokens_is_not_parsed(tmp_path, monkeypatch):
    """Its summary is made from its text, and its lint only checks its syntax: a syntax
    error there is still reported."""
    package = write_project(tmp_path)
    (tmp_path / "pkg" / "plain.py").write_text("def plain(x):\n    return x + 1\n")
    (tmp_path / "pkg" / "broken.py").write_text("def broken(x):\n    return x +\n")
    parsed = []
    real = project_pass.parse

    def spy(text, path):
        parsed.append(os.path.basename(path))
        return real(text, path)

    monkeypatch.setattr(project_pass, "parse", spy)
    monkeypatch.setattr("contiglint.engine.parse_tree", lambda text, path, real=__import__(
        "contiglint.segments", fromlist=["parse_tree"]).parse_tree: (
        parsed.append(os.path.basename(path)), real(text, path))[1])
    result = run([package], Config(), RunOptions(jobs=1))
    assert [(os.path.basename(e.path), e.line) for e in result.all_errors] == [("broken.py", 2)]
    assert [(os.path.basename(f.path), f.line) for f in result.findings] == \
        [("model.py", line) for line in (8, 9, 10, 11)]
    assert "plain.py" not in parsed, parsed  # (a syntax error is parsed for its message)
    assert "kernels.py" in parsed and "model.py" in parsed


def test_strict_mode_makes_every_summary_whole(tmp_path, monkeypatch):
    package = write_project(tmp_path)
    made = []
    summarize = project_pass.summarize

    def spy(tree, module, path, *args, lazy=False, **kwargs):
        made.append(lazy)
        return summarize(tree, module, path, *args, lazy=lazy, **kwargs)

    monkeypatch.setattr(project_pass, "summarize", spy)
    strict = findings(package, 1, Settings(strict=True))
    assert made and not any(made)
    assert {f[:3] for f in strict} >= set(EXPECTED)


# spellings the text test must see through: gaps Python allows between a dot, a name and its
# `(`, and every kind of evidence the parsed test finds
SPELLINGS = [
    "def f(x):\n    return x.stride(0)\n",
    "def f(x):\n    return x . stride (0)\n",
    "def f(x):\n    return (x.  # note\n        data_ptr\n        ())\n",
    "def f(x):\n    return (x.is_contiguous)()\n",
    "def f(x):\n    return x.untyped_storage \\\n        ()\n",
    "def f(x):\n    assert x.is_contiguous(), 'x'\n",
    "import torch\n\ndef f(b):\n    return torch.frombuffer(b)\n",
    "def f(x):\n    return x.__cuda_array_interface__\n",
    "def f(x):\n    return x.numpy().ctypes\n",
    "from . import fused_cuda\n\ndef f(x):\n    return fused_cuda.op(x.contiguous())\n",
    "import triton\n\n@triton.jit\ndef k(p):\n    pass\n\ndef f(x):\n    k[(1,)](x)\n",
    "import torch\n\n@torch.library.custom_op('ns::op', mutates_args=())\n"
    "def op(x: torch.Tensor) -> torch.Tensor:\n    return x\n",
    "from .lib import LIB\n\ndef op(x):\n    return x\n\nLIB.impl('ns::op', op)\n",
]


def needs_more_than_its_text(text: str) -> bool:
    """What a partial summary made from the text alone would miss: function passes, a
    custom op, an extension the module passes `.contiguous()` tensors."""
    summary = summarize(ast.parse(text), "m", "m.py", lazy=True)
    return not summary.partial or bool(summary.ops) or any(summary.extensions.values())


def test_the_text_test_clears_no_module_the_parsed_test_would_keep():
    """Every text of the repository's programs, and the spellings above, that the parsed test
    keeps (or that defines an op or an extension made contiguous) the text test keeps."""
    texts = SPELLINGS + [path.read_text() for folder in ("fixtures", "examples", "tests/eval")
                         for path in sorted((ROOT / folder).rglob("*.py"))]
    kept = cleared = 0
    for text in texts:
        try:
            needed = needs_more_than_its_text(text)
        except SyntaxError:
            continue
        seen = text_may_hold_evidence(as_python_reads(text))
        assert seen or not needed, text
        kept += needed
        cleared += not seen
    assert kept >= len(SPELLINGS) and cleared > 50  # both sides are exercised


@pytest.mark.parametrize("text", [
    "x.stride", "conv(x, stride=2)", "self.stride = 1\n", "y.contiguous()", "# x.data_ptr\n",
    "stride(0)", "cast(x)", "impl = 'eager'\n", "x.impl",
    "@torch.jit.script\ndef f(x):\n    return x\n\ny = f(x)\n",  # a jit function, not launched
])
def test_names_that_are_no_evidence_are_cleared(text):
    assert not text_may_hold_evidence(text)


CALLERS = {
    "__init__.py": "",
    "kernels.py": """
        import torch

        def fused(x):
            torch._check(x.is_contiguous())
            return x

        class Block:
            def __init__(self, w):
                torch._check(w.is_contiguous())
                self.w = w
    """,
    # spells the module's name and defines a constructor of its own: calls neither
    "neighbour.py": """
        import torch
        from . import kernels

        class Other:
            def __init__(self, w):
                self.w = w

        def size(x):
            return kernels.__name__, x.t()
    """,
    # calls the function through its module, and the constructor by its class
    "callers.py": """
        import torch
        from . import kernels
        from .kernels import Block

        def run(h):
            return kernels.fused(h)

        def build(w):
            return Block(w)
    """,
    "model.py": """
        from .callers import run, build

        def forward(h, w):
            return run(h.t()), build(w.t())
    """,
}


def test_a_module_is_made_whole_for_the_names_a_call_spells(tmp_path, monkeypatch):
    """A call of a module's function spells the function's name (`kernels.fused(x)`), and a
    constructor's call its class (`Block(w)`; a subclass's `super().__init__` names the class
    as its base): a module that spells only the module's name, or `__init__` of a class of its
    own, cannot pass a parameter on to them, and is not made whole (neighbour.py was, for
    `kernels` and `__init__`). The findings are those of a run that makes every summary
    whole."""
    package = tmp_path / "pkg"
    package.mkdir()
    for name, text in CALLERS.items():
        (package / name).write_text(textwrap.dedent(text).lstrip())
    completed = []
    whole = project_pass.whole_summary

    def spy(source, options):
        completed.append(os.path.basename(source.path))
        return whole(source, options)

    monkeypatch.setattr("contiglint.runner.whole_summary", spy)
    lazy = findings(str(package), 1)
    assert [f[:3] for f in lazy] == [("model.py", 4, "CTG114")]  # run(h.t())
    assert sorted(completed) == ["callers.py", "model.py"]
    monkeypatch.setattr(project_pass, "lazy_summaries", lambda config: False)
    assert findings(str(package), 1) == lazy
