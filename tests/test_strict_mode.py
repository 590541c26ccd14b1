"""Strict mode: sink rules also fire where the layout is UNKNOWN (a parameter, an unmodelled
call); the default mode reports only what the analysis shows.

Each snippet hands a function parameter, whose layout nothing in the module reveals, to one
rule's sink. The rule must stay silent by default and fire with `strict=True`; the same snippet
with the parameter made non-contiguous in the function itself must fire in both modes, so the
test checks the sink is really reached rather than that the rule never fires.
"""
from __future__ import annotations

import textwrap

import pytest

from contiglint.engine import lint_source
from contiglint.rules import rule_by_code
from contiglint.settings import Settings

# code -> (snippet with an UNKNOWN-layout parameter `x`, the line that must be flagged)
UNKNOWN_AT_SINK = {
    "CTG106": ("""
        def pointer(x):
            return x.data_ptr()
        """, 2),
    "CTG107": ("""
        import torch
        import torch.distributed as dist

        def reduce(x: torch.Tensor):  # CTG107 reads only values known to be tensors
            dist.all_reduce(x)
            return x
        """, 5),
    "CTG109": ("""
        def scores(x, rows):
            out = []
            for row in rows:
                out.append(row @ x.contiguous())
            return out
        """, 4),
    "CTG110": ("""
        import torch
        from torch import nn

        class Stem(nn.Module):
            def __init__(self):
                super().__init__()
                self.conv = nn.Conv2d(3, 8, 3)

            def forward(self, x):
                return self.conv(x).contiguous()
        """, 10),
}

# the same sinks on a tensor the function itself makes non-contiguous (or channels_last)
KNOWN_AT_SINK = {
    "CTG106": ("x = x.t()", "    return x.data_ptr()"),
    "CTG107": ("x = x.t()", "    dist.all_reduce(x)"),
    "CTG109": ("x = x.t()", "        out.append(row @ x.contiguous())"),
    "CTG110": ("x = x.contiguous(memory_format=torch.channels_last)",
               "        return self.conv(x).contiguous()"),
}

# rules that read UNKNOWN layouts in strict mode but do not exist or lack it yet
NOT_YET = {"CTG104": "CTG104 (device moves) has no strict mode: it reports PERMUTED tensors "
                     "only, never UNKNOWN ones"}
STRICT_RULES = sorted(code for code in UNKNOWN_AT_SINK if rule_by_code(code) is not None)


def findings(source: str, code: str, strict: bool) -> list[int]:
    settings = Settings(select=(code,), strict=strict)
    result = lint_source(textwrap.dedent(source).lstrip("\n"), "snippet.py", settings)
    assert not result.errors, result.errors
    return [finding.line for finding in result.findings if finding.code == code]


def with_known_layout(code: str) -> str:
    """The UNKNOWN snippet with `x` made non-contiguous right before the sink."""
    source, _ = UNKNOWN_AT_SINK[code]
    statement, sink_line = KNOWN_AT_SINK[code]
    source = textwrap.dedent(source)
    indent = sink_line[: len(sink_line) - len(sink_line.lstrip())]
    assert sink_line in source, (code, sink_line)
    if code == "CTG109":  # outside the loop, so the copy stays loop-invariant
        return source.replace("    out = []", f"    {statement}\n    out = []")
    return source.replace(sink_line, f"{indent}{statement}\n{sink_line}")


@pytest.mark.parametrize("code", STRICT_RULES)
def test_unknown_layout_is_flagged_only_in_strict_mode(code):
    source, line = UNKNOWN_AT_SINK[code]
    assert findings(source, code, strict=False) == []
    assert findings(source, code, strict=True) == [line]


@pytest.mark.parametrize("code", STRICT_RULES)
def test_known_layout_is_flagged_in_both_modes(code):
    source = with_known_layout(code)
    assert findings(source, code, strict=False) != []
    assert findings(source, code, strict=False) == findings(source, code, strict=True)


@pytest.mark.parametrize("code", sorted(NOT_YET))
@pytest.mark.xfail(reason="no strict mode yet; see NOT_YET", strict=True)
def test_rules_without_strict_mode_yet(code):
    source = """
        def move(x, device):
            return x.to(device)
        """
    assert rule_by_code(code) is not None, NOT_YET[code]
    assert findings(source, code, strict=True) == [2], NOT_YET[code]


@pytest.mark.parametrize("code, source", [
    ("CTG108", """
        def bump(x):
            x.add_(1)
            return x
        """),
    ("CTG113", """
        def copy(x):
            return x.contiguous()
        """),
])
def test_rules_that_never_read_unknown_layouts(code, source):
    """An in-place write (CTG108) or a `.contiguous()` (CTG113) on a tensor of unknown layout
    is ordinary code: strict mode widens what counts as evidence, not these rules' subject."""
    assert findings(source, code, strict=True) == []


def test_ctg108_strict_mode_flags_windows_of_unknown_overlap():
    source = """
        def frames(signal, size, hop):
            windows = signal.unfold(-1, size, hop)
            windows.mul_(2)
            return windows
        """
    assert findings(source, "CTG108", strict=False) == []
    assert findings(source, "CTG108", strict=True) == [3]
