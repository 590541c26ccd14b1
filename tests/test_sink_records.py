"""Sinks are typed records: one record type per catalogue sink kind, carrying named fields, and
the analysis leaves the syntax tree it reads as the parser made it."""
from __future__ import annotations

import ast
import dataclasses
from pathlib import Path

import pytest

from contiglint.catalogue.sinks import BY_KIND
from contiglint.engine import lint_tree
from contiglint.layout.flow.program import analyze_module
from contiglint.layout.sinks import records
from contiglint.rules import all_rules
from contiglint.settings import Settings
from contiglint.source import SourceMap

ROOT = Path(__file__).resolve().parents[1]


def test_one_record_type_per_catalogue_kind():
    assert set(records.RECORDS) == set(BY_KIND)
    for kind, record in records.RECORDS.items():
        assert record.kind == kind
        assert issubclass(record, records.Sink) and record is not records.Sink
        assert dataclasses.is_dataclass(record)
    base = {f.name for f in dataclasses.fields(records.Sink)}
    assert {"node", "target", "value", "op", "chain", "loop", "loop_invariant", "function",
            "copy", "guarded_parameter", "path"} == base
    for rule in all_rules():
        assert rule.sinks <= set(records.RECORDS), rule.code


SOURCE = '''
import torch
import torch.distributed as dist

def f(x, w):
    a = x.transpose(0, 1)
    a.view(4, -1)
    a.view(torch.uint8)
    x.to("cuda")
    x.contiguous(memory_format=torch.channels_last)
    dist.all_reduce(a, async_op=True)
    a.add_(1)
    b = a.contiguous()
    b.mul_(2)
    torch.save(a, "a.pt")
    if x.is_contiguous():
        pass
    return a
'''


def sinks_of(source: str) -> list[records.Sink]:
    return analyze_module(ast.parse(source), SourceMap(source), "m.py")


def one(sinks, record, op):
    found = [s for s in sinks if type(s) is record and s.op == op]
    assert found, (record.__name__, op)
    return found[0]


def test_each_kind_carries_its_named_fields():
    sinks = sinks_of(SOURCE)
    shape = [s for s in sinks if isinstance(s, records.ViewSink) and s.dtype is None]
    assert shape and shape[0].sizes is not None and shape[0].sizes[-1] == "-1"
    assert len(shape[0].sizes) == 2
    dtype = [s for s in sinks if isinstance(s, records.ViewSink) and s.dtype is not None]
    assert dtype and dtype[0].dtype == "torch.uint8" and dtype[0].sizes is None
    move = one(sinks, records.DeviceMoveSink, "to")
    assert move.device is True and move.memory_format is None
    copy = one(sinks, records.ContiguousCallSink, "contiguous")
    assert copy.memory_format == "channels_last"
    collective = one(sinks, records.CollectiveSink, "torch.distributed.all_reduce")
    assert collective.position == 0
    one(sinks, records.SaveSink, "torch.save")
    branch = [s for s in sinks if isinstance(s, records.LayoutBranchSink)]
    assert branch and branch[0].traced is None
    escape = [s for s in sinks if isinstance(s, records.EscapeSink)]
    assert escape and isinstance(escape[0].target, ast.Name)


def test_a_write_into_a_copy_names_the_copy_call_and_its_source():
    sinks = sinks_of(SOURCE)
    writes = {s.op: s for s in sinks if isinstance(s, records.InplaceSink)}
    assert writes[".add_()"].copy is None
    copied = writes[".mul_()"].copy
    assert copied is None  # `b` is a name: the write reaches `b`, not a temporary
    through = sinks_of("def f(x):\n    x.t().contiguous().mul_(2)\n")
    (write,) = [s for s in through if isinstance(s, records.InplaceSink)]
    assert write.copy is not None and write.copy.call.func.attr == "contiguous"
    assert write.copy.source.noncontiguous  # the receiver of the copy call: `x.t()`


def test_kernel_launch_carries_the_kernel_signature():
    source = ("import triton\n\n@triton.jit\ndef k(X, n):\n    pass\n\n"
              "def f(x):\n    k[(1,)](x.t(), 4)\n")
    (launch,) = [s for s in sinks_of(source) if isinstance(s, records.KernelLaunchSink)]
    assert launch.parameter == "X" and launch.kernel.triton
    assert launch.kernel.params == ("X", "n")


FILES = sorted((ROOT / "fixtures").rglob("*.py"))[:60] + \
    sorted((ROOT / "tests" / "eval" / "general").rglob("*.py"))[:60]


@pytest.mark.parametrize("path", FILES, ids=lambda p: str(p.relative_to(ROOT)))
def test_analysis_attaches_nothing_to_the_tree(path):
    text = path.read_text()
    tree = ast.parse(text)
    before = {id(node): set(vars(node)) for node in ast.walk(tree)}
    lint_tree(tree, text, str(path), Settings(strict=True))
    for node in ast.walk(tree):
        extra = set(vars(node)) - before[id(node)]
        assert not extra, (type(node).__name__, getattr(node, "lineno", None), extra)


# `.contiguous()` results fed to a collective, a buffer, a trace or an in-place write: CTG110
# and CTG113 look at those sinks (`Rule.reads`) to leave these calls alone
READS_OTHER_KINDS = '''\
import torch
import torch.distributed as dist
import torch.nn as nn


class Stem(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 8, 3)

    def forward(self, images):
        x = images.contiguous(memory_format=torch.channels_last)
        y = self.conv(x)
        dist.all_reduce(y.contiguous())
        self.register_buffer("stats", torch.relu(y).contiguous())
        return torch.jit.trace(self.conv, torch.relu(y).contiguous())


def grads(images, weight):
    x = images.to(memory_format=torch.channels_last)
    flat = torch.relu(x)
    dist.all_reduce(flat.contiguous())
    flat.contiguous().add_(1)
    return flat


def buckets():
    flat = torch.zeros(16)
    dist.all_reduce(flat.contiguous())
    return flat.contiguous()
'''


def _every_case() -> list[Path]:
    return sorted((ROOT / "tests" / "eval").rglob("*.py")) + \
        sorted((ROOT / "examples").glob("*.py")) + sorted((ROOT / "fixtures").rglob("*.py"))


@pytest.mark.parametrize("select, strict", [((rule.code,), strict) for rule in all_rules()
                                            for strict in (False, True)] +
                         [(("CTG",), False), (tuple(rule.code for rule in all_rules()), True)])
def test_recording_only_the_kinds_the_rules_read_finds_the_same(select, strict, monkeypatch):
    """The flow pass records only the sink kinds the enabled rules read (`Rule.sinks` and
    `Rule.reads`). A rule that looks at another kind through `RuleContext.sinks` without
    naming it in `reads` would lose findings here: every eval case, example and fixture is
    linted both ways, each rule alone and together, with the findings compared."""
    from contiglint import engine

    settings = Settings(select=select, strict=strict)
    texts = [(str(path), path.read_text()) for path in _every_case()] + \
        [("reads_other_kinds.py", READS_OTHER_KINDS)]
    recorded = [engine.lint_source(text, path, settings) for path, text in texts]
    monkeypatch.setattr(engine, "sink_kinds", lambda rules: None)
    every_kind = [engine.lint_source(text, path, settings) for path, text in texts]
    found = [(f.path, f.line, f.column, f.code, f.message) for result in recorded
             for f in result.findings]
    assert found == [(f.path, f.line, f.column, f.code, f.message) for result in every_kind
                     for f in result.findings]
    assert any(result.findings for result in recorded) or select == ("CTG113",)


def test_only_the_kinds_asked_for_are_recorded():
    text = ("import torch\n"
            "def f(x):\n"
            "    y = x.t().contiguous()\n"
            "    return x.t().view(-1), y\n")
    tree = ast.parse(text)
    every = {s.kind for s in analyze_module(tree, SourceMap(text), "m.py")}
    assert {"contiguous_call", "view"} <= every
    asked = analyze_module(tree, SourceMap(text), "m.py", kinds=frozenset({"contiguous_call"}))
    assert {s.kind for s in asked} == {"contiguous_call"}
