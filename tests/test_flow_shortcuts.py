"""The cheap checks that stand in for costly ones must answer the same: each is
checked against what it replaces, on every case the repository holds."""
from __future__ import annotations

import ast
from pathlib import Path

from contiglint.catalogue import contracts as catalogue
from contiglint.layout.syntax.compiled import _names_jit
from contiglint.layout.contracts.summary import _may_load

ROOT = Path(__file__).resolve().parent.parent
EXTRA = ["torch.jit.script", "triton.jit", "numba.njit(cache=True)", "foo(b'jit')",
         "foo(mode='jit')", "bar(lambda jit: 1)", "baz(x, y)", "torch.compile", "foo(jitter=1)",
         "a[b]", "f'{jit}'", "x.y(z=j)"]


def _trees():
    for path in sorted(ROOT.glob("**/*.py")):
        if "corpus" in path.parts or ".venv" in path.parts:
            continue
        try:
            yield ast.parse(path.read_text(encoding="utf-8"))
        except (SyntaxError, UnicodeDecodeError, ValueError):
            continue  # fixtures of unparsable input


def test_jit_name_check_agrees_with_the_decorator_text():
    decorators = [ast.parse(text, mode="eval").body for text in EXTRA]
    for tree in _trees():
        decorators += [d for node in ast.walk(tree)
                       if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))
                       for d in node.decorator_list]
    assert len(decorators) > 100
    assert any("jit" in ast.unparse(d) for d in decorators)
    for decorator in decorators:
        assert _names_jit(decorator) == ("jit" in ast.unparse(decorator)), \
            ast.unparse(decorator)


def test_a_loader_call_is_never_skipped():
    """Every callee whose qualified name could be an extension loader passes the check:
    attribute spellings of the loaders and any bare name (an alias)."""
    for qualname in catalogue.EXTENSION_LOADERS:
        parts = qualname.split(".")
        for start in range(len(parts)):
            func = ast.parse(".".join(parts[start:]), mode="eval").body
            assert _may_load(func)
    assert _may_load(ast.parse("build", mode="eval").body)
    assert not _may_load(ast.parse("torch.zeros", mode="eval").body)


def test_line_starts_without_a_carriage_return_agree_with_the_line_end_pattern():
    import re

    from contiglint.findings import line_starts

    pattern = re.compile(r"\r\n|\r|\n")
    texts = ["", "x", "\n", "\n\n", "x = 1", "x = 1\n", "a\nb", "a\n\nb\n", "\u00e9\n\u65e5\n",
             "a\r\nb\rc\nd", "\r", "\r\n\r\n", "a\x0cb\nc\x1cd\u2028e\n"]  # not line ends here
    texts += [path.read_text(encoding="utf-8") for path in sorted(ROOT.glob("contiglint/**/*.py"))]
    for text in texts:
        assert line_starts(text) == [0] + [m.end() for m in pattern.finditer(text)], text[:40]


def _sources():
    for path in sorted(ROOT.glob("**/*.py")):
        if "corpus" in path.parts or ".venv" in path.parts:
            continue
        try:
            text = path.read_text(encoding="utf-8")
            yield str(path), text, ast.parse(text)
        except (SyntaxError, UnicodeDecodeError, ValueError):
            continue


def test_no_write_into_a_copy_is_missed_by_the_syntax_check():
    """CTG111 reports only sinks whose target holds a copy-if-needed call on its receiver
    spine (`sink.copy`); the index's syntax check that lets a module without one go
    unanalysed must say True for every module where the flow pass records such a sink."""
    from contiglint.layout.syntax.index import ModuleIndex
    from contiglint.layout.flow.program import analyze_module
    from contiglint.source import SourceMap

    with_copy = 0
    for path, text, tree in _sources():
        index = ModuleIndex(tree)
        try:
            sinks = analyze_module(tree, SourceMap(text), path, index=index)
        except RecursionError:
            continue
        if any(s.kind in ("inplace", "collective") and s.copy is not None for s in sinks):
            with_copy += 1
            assert index.may_write_into_copy, path
    assert with_copy >= 10  # the repository's CTG111 cases, fixtures and examples


WRITES_INTO_A_COPY = {  # the statement (x is a transposed tensor) -> a write into a copy?
    "x.contiguous().add_(1)": True,
    "x.reshape(6)[0] = 1": True,
    "x.flatten()[0] += 1": True,
    "x.contiguous().data += 1": True,
    "dist.all_reduce(x.contiguous())": True,
    "dist.broadcast(tensor=x.contiguous(), src=0)": True,
    "torch.add(x, 1, out=x.contiguous())": True,
    "torch.relu_(x.contiguous())": True,
    "F.relu(x.contiguous(), inplace=True)": True,
    "x.contiguous().view(6).mul_(2)": True,
    "relu = torch.nn.ReLU(inplace=True)\n    relu(x.contiguous())": True,  # named `inplace`
    "lib = torch\n    lib.relu_(x.contiguous())": True,  # torch handed on
    "from torch import relu_\n    relu_(x.contiguous())": True,
    "from torch import relu_ as r\n    r(x.contiguous())": True,
    "import torch.functional as TF\n    TF.relu_(x.contiguous())": True,
    "init = torch.nn.init\n    init.normal_(x.contiguous())": False,
    "print(x.contiguous())": False,  # passed to a call, and the module names no writing one
    "torch.nn.init.normal_(x.contiguous())": False,  # in-place, but not a torch function
    "y = torch.zeros(3, 2)\n    y.copy_(x.contiguous())": False,  # writes its receiver
    "w = torch.zeros(2)\n    w.normal_()\n    print(x.contiguous())": False,
    "y = x.contiguous()\n    y.add_(1)": False,  # the write's target is a name
    "return x.reshape(6)": False,
    "z = x.reshape(6).permute(0)": False,
    "z = [x.contiguous()]": False,
    "z = x.contiguous() + 1": False,
}


def test_the_syntax_check_for_writes_into_a_copy_on_each_form():
    from contiglint.layout.syntax.index import ModuleIndex
    from contiglint.layout.flow.program import analyze_module
    from contiglint.source import SourceMap

    for statement, writes in WRITES_INTO_A_COPY.items():
        text = ("import torch\nimport torch.distributed as dist\nimport torch.nn.functional as F"
                f"\n\n\ndef f():\n    x = torch.randn(2, 3).t()\n    {statement}\n")
        tree = ast.parse(text)
        index = ModuleIndex(tree)
        sinks = analyze_module(tree, SourceMap(text), "m.py", index=index)
        recorded = any(s.kind in ("inplace", "collective") and s.copy is not None
                       for s in sinks)
        assert recorded == writes and index.may_write_into_copy == writes, statement


def _module_sinks(text: str):
    from contiglint.layout.syntax.index import ModuleIndex
    from contiglint.layout.flow.program import analyze_module
    from contiglint.source import SourceMap

    tree = ast.parse(text)
    index = ModuleIndex(tree)
    return index, analyze_module(tree, SourceMap(text), "m.py", index=index)


CONTIGUOUS_IN_A_LOOP = {  # the statement (x is a transposed tensor) -> a copy in a loop?
    "for _ in range(n):\n        y = x.contiguous()": True,
    "while n:\n        y = x.contiguous()\n        n -= 1": True,
    "for _ in range(n):\n        if n:\n            y = [x.contiguous()]": True,
    "y = x.contiguous()": False,
    "ys = [x.contiguous() for _ in range(n)]": False,  # a comprehension is not a loop there
    "for _ in range(n):\n        def g():\n            return x.contiguous()\n        g()": False,
    "for _ in range(n):\n        g = lambda: x.contiguous()": False,
}


def test_the_syntax_check_for_a_copy_in_a_loop_on_each_form():
    """CTG109 reports only copies made inside a loop of their own function (`Sink.loop`);
    the index says so for a module exactly where the flow pass records such a sink."""
    for statement, in_loop in CONTIGUOUS_IN_A_LOOP.items():
        text = f"import torch\n\n\ndef f(n):\n    x = torch.randn(2, 3).t()\n    {statement}\n"
        index, sinks = _module_sinks(text)
        recorded = any(s.kind == "contiguous_call" and s.loop is not None for s in sinks)
        assert recorded == in_loop and index.contiguous_in_loop == in_loop, statement


CALLS_A_COLLECTIVE = {  # the module's code -> does it call a collective?
    "import torch.distributed as dist\ndist.all_reduce(x)": True,
    "import torch\ntorch.distributed.broadcast(x, 0)": True,
    "from torch.distributed import all_gather\nall_gather([x], x)": True,
    "from torch import distributed\ndistributed.reduce(x, 0)": True,
    "import torch\ny = torch.gather(x, 0, torch.zeros(1, 2).long())": False,
    "import torch\ny = x.scatter(0, torch.zeros(1, 2).long(), 1.0)": False,
    "import torch\n# distributed under the License\nreduce = max\ny = reduce(x, x)": False,
}


def test_the_syntax_check_for_a_collective_on_each_form():
    """CTG107 (and CTG111's writes by a collective) need a call of `torch.distributed`;
    the index says a module may make one exactly where the flow pass records one."""
    for code, calls in CALLS_A_COLLECTIVE.items():
        head, _, last = code.rpartition("\n")
        text = f"{head}\nimport torch\n\n\ndef f():\n    x = torch.randn(2, 3)\n    {last}\n"
        index, sinks = _module_sinks(text)
        recorded = any(s.kind == "collective" for s in sinks)
        assert recorded == calls and index.may_call_collective == calls, code


def test_a_rule_ruled_out_by_the_prefilter_or_the_syntax_check_has_no_finding_there():
    """A module is analysed only when an enabled rule holds one of its own tokens and its
    `Rule.may_fire_text` and `Rule.may_fire` say True: none may be False where the rule,
    run, has a finding.
    Every rule, default and strict mode, every module of the repository (its fixtures,
    examples and eval cases)."""
    from contiglint.engine import lint_tree
    from contiglint.prefilter import as_python_reads, holds_tokens
    from contiglint.layout.syntax.index import ModuleIndex
    from contiglint.layout.syntax.text import Text
    from contiglint.rules import all_rules, rule_by_code
    from contiglint.settings import Settings

    codes = tuple(rule.code for rule in all_rules())
    fired = 0
    for strict in (False, True):
        settings = Settings(select=codes, strict=strict)
        for path, text, tree in _sources():
            index = ModuleIndex(tree)
            for finding in lint_tree(tree, text, path, settings, index=index).findings:
                fired += 1
                rule = rule_by_code(finding.code)
                searched = as_python_reads(text)
                assert holds_tokens(rule(), searched), (finding.code, path)
                assert rule.may_fire_text(Text(searched), settings), (finding.code, path)
                assert rule.may_fire(index, settings), (finding.code, path)
    assert fired > 500


QUIET_INIT = """\
import torch
import torch.nn as nn


class Block(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.proj = nn.Linear(config.width, config.width)
        self.scale = config.width ** -0.5

    def forward(self, x):
        return self.proj(x.transpose(1, 2).contiguous()) * self.scale
"""


def _runs_of(text: str, key: str, reuse: bool, monkeypatch) -> int:
    from contiglint.layout.flow import program
    from contiglint.layout.flow.frame import Frame
    from contiglint.source import SourceMap

    runs, real = [], Frame.bind_parameters
    monkeypatch.setattr(Frame, "bind_parameters", lambda frame, *args: runs.append(
        frame.function.name) or real(frame, *args))
    made = program.Program(ast.parse(text), SourceMap(text), "m.py", contracts=False,
                           kinds=frozenset({"contiguous_call"}))
    made.reuse_quiet_runs = reuse
    made.run()
    monkeypatch.undo()
    return runs.count(key)


def test_a_quiet_run_made_before_sinks_are_recorded_is_not_made_again(monkeypatch):
    """`Block.__init__` runs once to learn the attributes; it meets no sink of a kind that
    is recorded, so while sinks are recorded its result is taken from that run."""
    assert _runs_of(QUIET_INIT, "__init__", True, monkeypatch) == 1
    assert _runs_of(QUIET_INIT, "__init__", False, monkeypatch) == 2
    loud = QUIET_INIT.replace("self.scale = config.width ** -0.5",
                              "self.scale = torch.ones(4).t().contiguous()")
    assert _runs_of(loud, "__init__", True, monkeypatch) == 2  # it met one: it runs again


def test_quiet_runs_taken_from_before_recording_give_every_finding(monkeypatch):
    """Every eval case and example, each rule alone and the default rules, default and strict
    mode: the same findings as when every call runs again while sinks are recorded."""
    from contiglint import engine
    from contiglint.layout.flow import program
    from contiglint.rules import all_rules
    from contiglint.settings import Settings

    cases = sorted((ROOT / "tests" / "eval").rglob("*.py")) + sorted(ROOT.glob("examples/*.py"))
    texts = [(str(path), path.read_text()) for path in cases]
    selections = [(rule.code,) for rule in all_rules()] + [("CTG",)]

    def findings(reuse: bool) -> list:
        monkeypatch.setattr(program.Program, "reuse_quiet_runs", reuse)
        return [(path, f.line, f.column, f.code, f.message, f.related)
                for select in selections for strict in (False, True)
                for path, text in texts
                for f in engine.lint_source(text, path, Settings(select=select,
                                                                 strict=strict)).findings]
    reused = findings(True)
    assert len(reused) > 400 and reused == findings(False)
