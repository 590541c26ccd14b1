"""Statement-level fixes made by LibCST and handed back as range edits: every byte outside the
changed statement is kept (comments above it stay above the new statements, a trailing
comment stays on its line, lone-CR files keep their line ends), the edits are the documented
JSON, and a place LibCST cannot change gets no edits rather than wrong ones."""
from __future__ import annotations

import ast

from contiglint.engine import fix_source, lint_source
from contiglint.findings import Edit, Position, Rewrite
from contiglint.rewrite import rewrite_edits
from contiglint.settings import Settings

SETTINGS = Settings(select=("CTG106", "CTG107", "CTG109", "CTG111"))
HEADER = "import torch\nimport torch.distributed as dist\n"
SYNC = HEADER + ("def sync(x):\n    g = x.t()\n    # reduce the gradient\n"
                 "    dist.all_reduce(g)  # keep this comment\n    return g\n")


def fixed(text):
    return fix_source(text, "t.py", SETTINGS, unsafe=True).text


def test_comments_around_the_statement_stay_where_they_were():
    assert fixed(SYNC) == HEADER + (
        "def sync(x):\n    g = x.t()\n    # reduce the gradient\n"
        "    g_contig = g.contiguous()\n    dist.all_reduce(g_contig)  # keep this comment\n"
        "    g.copy_(g_contig)\n    return g\n")


def test_edits_are_minimal_range_edits_in_the_documented_schema():
    [finding] = lint_source(SYNC, "t.py", SETTINGS).findings
    assert [e.as_json() for e in finding.fix.edits] == [
        {"line": 3, "column": 1, "end_line": 3, "end_column": 1, "content": ""},  # scope lock
        {"line": 6, "column": 1, "end_line": 6, "end_column": 1,
         "content": "    g_contig = g.contiguous()\n"},
        {"line": 6, "column": 21, "end_line": 6, "end_column": 22, "content": "g_contig"},
        {"line": 7, "column": 1, "end_line": 7, "end_column": 1,
         "content": "    g.copy_(g_contig)\n"},
    ]


def test_lone_cr_file_keeps_its_line_ends():
    out = fixed(SYNC.replace("\n", "\r"))
    assert "\n" not in out and out == fixed(SYNC).replace("\n", "\r")


def test_hoist_above_a_nested_loop_keeps_the_loop_body_byte_for_byte():
    text = HEADER + ("def f(w, xs):\n    out = []\n    for x in xs:\n"
                     "        out.append(x @ w.t().contiguous())   # odd spacing kept\n"
                     "    return out\n")
    out = fixed(text)
    assert "    w_contiguous = w.t().contiguous()\n    for x in xs:\n" \
           "        out.append(x @ w_contiguous)   # odd spacing kept\n" in out
    ast.parse(out)


def test_a_statement_sharing_its_line_gets_no_edits():
    text = "a = 1; b = 2\n"
    rewrite = Rewrite(text, Position(1, 8), before=("c = 3",))
    assert rewrite_edits(rewrite) == ()
    rewrite = Rewrite(text, Position(1, 1), before=("c = 3",))
    assert rewrite_edits(rewrite) == ()


def test_a_lone_statement_gets_its_block_indentation_from_libcst():
    text = "if x:\n\tif y:\n\t\tz = 1\n"
    rewrite = Rewrite(text, Position(3, 3), before=("w = 0",), after=("v = 2",),
                      lock=Position(1, 1))
    edits = rewrite_edits(rewrite)
    assert edits[0] == Edit(Position(1, 1), Position(1, 1), "")
    from contiglint.findings import Fix, apply_fixes
    assert apply_fixes(text, [Fix("unsafe", edits)])[0] == \
        "if x:\n\tif y:\n\t\tw = 0\n\t\tz = 1\n\t\tv = 2\n"


def test_only_the_top_level_statement_is_rewritten_decorators_and_neighbours_kept():
    text = HEADER + ("x = 1; y = 2\n\n\n@torch.no_grad()\n@staticmethod\ndef sync(x):\n"
                     "    g = x.t()\n    dist.all_reduce(g)\n\n\ndef after():\n    return 3\n")
    assert fixed(text) == HEADER + (
        "x = 1; y = 2\n\n\n@torch.no_grad()\n@staticmethod\ndef sync(x):\n    g = x.t()\n"
        "    g_contig = g.contiguous()\n    dist.all_reduce(g_contig)\n    g.copy_(g_contig)\n"
        "\n\ndef after():\n    return 3\n")


def test_a_method_in_a_crlf_file_is_rewritten_alone_with_crlf_lines():
    text = (HEADER + "class Sync:\n    '''docs'''\n\n    def run(self, x):\n"
            "        def inner():\n            return 1\n        g = x.t()\n"
            "        dist.all_reduce(g)\n        return inner\n").replace("\n", "\r\n")
    out = fixed(text)
    assert "        g_contig = g.contiguous()\r\n        dist.all_reduce(g_contig)\r\n" \
           "        g.copy_(g_contig)\r\n        return inner\r\n" in out
    assert out.count("\r\n") == out.count("\n")
    ast.parse(out)
