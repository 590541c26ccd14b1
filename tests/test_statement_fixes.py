"""Fixes that insert statements (CTG106, CTG107, CTG111) on awkward source: CRLF files, a last
line without a newline, module-level code, and places where a statement cannot go."""
from __future__ import annotations

import ast

from contiglint.engine import fix_source, lint_source
from contiglint.settings import Settings
from tests.clitools import contiglint, findings_json, write

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


ESCAPING = {  # function -> body after `t = x.t()`: the pointer outlives the call
    "returned": "    return t.data_ptr()\n",
    "returned_by_name": "    p = t.data_ptr()\n    q = p + 16\n    lib.read(q)\n    return q\n",
    "returned_in_a_tuple": "    return (t.data_ptr(), t.numel())\n",
    "stored_on_self": "    self.ptr = t.data_ptr()\n",
    "stored_in_a_dict": "    CACHE['p'] = t.data_ptr()\n",
    "appended": "    KEEP.append(t.data_ptr())\n",
    "yielded": "    yield t.data_ptr()\n",
    "captured": "    p = t.data_ptr()\n    return lambda: p\n",
    "global_name": "    global P\n    P = t.data_ptr()\n",
    "buffer_returned": "    buf = (ctypes.c_float * 6).from_address(t.data_ptr())\n    return buf\n",
    "accumulated": "    ptrs = []\n    for _ in range(2):\n        ptrs = ptrs + [t.data_ptr()]\n"
                   "    lib.read(ptrs)\n",
    "temporary_copy": "    return t.contiguous().data_ptr()\n",
}
STAYING = {  # the pointer is used while the function runs
    "used": "    lib.read(t.data_ptr(), t.numel())\n",
    "read_and_returned": "    return lib.read(t.data_ptr(), t.numel())\n",
    "compared": "    p = t.data_ptr()\n    return p != 0, p % 16 == 0\n",
    "used_by_name": "    p = t.data_ptr()\n    lib.read(p, t.numel())\n    return t.numel()\n",
    "used_in_a_loop": "    for _ in range(2):\n        p = t.data_ptr()\n        lib.read(p)\n",
    "buffer_used": "    buf = (ctypes.c_float * 6).from_address(t.data_ptr())\n"
                   "    return list(buf)\n",
}


def test_no_fix_makes_a_pointer_outlive_its_copy(tmp_path):
    """CTG106's fix binds a copy to a local name and takes its pointer: a pointer that leaves
    the function (returned, stored, yielded, captured, accumulated) would point into a copy
    freed on return, so those findings get no fix; the others keep theirs, and at module level
    the copy is a global."""
    functions = {**ESCAPING, **STAYING}
    text = "import ctypes\n\nimport torch\n\nCACHE = {}\nKEEP = []\n" + "".join(
        f"\n\ndef {name}(self, x, lib):\n    t = x.t()\n{body}"
        for name, body in functions.items()) + \
        "\n\nsrc = torch.randn(3, 4)[:, ::2]\nptr = src.data_ptr()\n"
    write(tmp_path, "m.py", text)
    lines = text.splitlines()
    owner = {}
    for number, line in enumerate(lines, 1):
        if line.startswith("def "):
            current = line[4:line.index("(")]
        owner[number] = current if line.startswith((" ", "def ")) else "<module>"
    findings = findings_json("--select", "CTG106", "m.py", cwd=tmp_path)
    fixed = {owner[f["line"]]: f["fix"] is not None for f in findings}
    assert fixed == {**{name: False for name in ESCAPING},
                     **{name: True for name in STAYING}, "<module>": True}
    process = contiglint("--select", "CTG106", "--fix", "--unsafe-fixes", "--no-cache", "m.py",
                         cwd=tmp_path)
    assert process.returncode == 1, process.stderr
    after = (tmp_path / "m.py").read_text()
    ast.parse(after)
    assert "    return t.data_ptr()\n" in after and "t_contig" in after
