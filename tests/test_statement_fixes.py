"""Fixes that insert statements (CTG106, CTG107, CTG111) on awkward source: CRLF files, a last
line without a newline, module-level code, and places where a statement cannot go."""
from __future__ import annotations

import ast

from contiglint.engine import fix_source, lint_source
from contiglint.settings import Settings

SETTINGS = Settings(select=("CTG105", "CTG106", "CTG107", "CTG111"))
HEADER = "import torch\nimport torch.distributed as dist\n"


def findings(text):
    return lint_source(text, "t.py", SETTINGS).findings


def fixed(text):
    return fix_source(text, "t.py", SETTINGS, unsafe=True).text


def test_crlf_file_gets_crlf_statements():
    text = (HEADER + "def sync(x):\n    g = x.t()\n    dist.all_reduce(g)\n").replace("\n", "\r\n")
    out = fixed(text)
    assert out.count("\r\n") == out.count("\n")
    assert "    g_contig = g.contiguous()\r\n    dist.all_reduce(g_contig)\r\n" \
           "    g.copy_(g_contig)\r\n" in out
    ast.parse(out)


def test_last_line_without_newline():
    text = HEADER + "def sync(x):\n    g = x.t()\n    dist.all_reduce(g)"
    out = fixed(text)
    assert out.endswith("    dist.all_reduce(g_contig)\n    g.copy_(g_contig)")
    ast.parse(out)


def test_module_level_code_is_fixed():
    text = HEADER + "x = torch.randn(3, 4)\nsrc = x[:, ::2]\nptr = src.data_ptr()\n"
    assert [f.code for f in findings(text)] == ["CTG106"]
    assert "src_contig = src.contiguous()\nptr = src_contig.data_ptr()\n" in fixed(text)


def test_no_statement_before_an_elif_test():
    text = HEADER + ("def f(x, flag):\n    t = x.t()\n    if flag:\n        return 0\n"
                     "    elif t.data_ptr():\n        return 1\n    return 2\n")
    [finding] = findings(text)
    assert finding.code == "CTG106" and finding.fix is None


def test_async_collective_into_temporary_has_no_fix():
    text = HEADER + ("def f(x):\n    g = x.t()\n"
                     "    work = dist.all_reduce(g.contiguous(), async_op=True)\n"
                     "    return work\n")
    [finding] = findings(text)
    assert finding.code == "CTG111" and finding.fix is None


def test_kept_result_of_temporary_is_not_a_lost_update():
    text = HEADER + "def f(x):\n    y = x.t().contiguous().mul_(2)\n    return y\n"
    assert findings(text) == []


def test_known_contiguous_source_is_not_a_lost_update():
    text = HEADER + "def f():\n    x = torch.zeros(3, 4)\n    x.contiguous().add_(1)\n    return x\n"
    assert findings(text) == []


def test_fresh_names_do_not_rebind_a_live_copy():
    text = HEADER + ("def f(x, read):\n    t = x.t()\n    a = read(t.data_ptr())\n"
                     "    b = read(t.data_ptr())\n    return a, b\n")
    out = fixed(text)
    assert "t_contig = t.contiguous()" in out and "t_contig2 = t.contiguous()" in out


def test_traced_tuple_bound_to_a_name_is_reported_without_fix():
    text = HEADER + ("def f(m, x):\n    inputs = (x.t(), x)\n"
                     "    return torch.jit.trace(m, inputs)\n")
    [finding] = findings(text)
    assert finding.code == "CTG105" and finding.fix is None


def test_layout_branch_outside_traced_code_is_not_reported():
    text = HEADER + ("def g(x):\n    if x.is_contiguous():\n        return x\n    return x + 1\n\n"
                     "def h(x):\n    if x.is_contiguous():\n        return x\n    return x - 1\n\n"
                     "def run(x):\n    return torch.jit.trace(h, (x,))\n")
    assert [(f.code, f.line) for f in findings(text)] == [("CTG105", 9)]
