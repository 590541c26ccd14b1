"""A large text is parsed and analysed one group of top-level statements at a time
(contiglint/segments.py): the same findings as a whole-text analysis where no finding needs a
definition from another segment, the file's own line numbers, the file's syntax errors, and a
clear E903 for a part that cannot be cut. The sizes are made small here (in punctuation marks,
about five characters each in these texts) so that a short text is large."""
from __future__ import annotations

import ast

import pytest

from contiglint import segments
from contiglint.engine import fix_source, lint_source
from contiglint.settings import Settings

SETTINGS = Settings(preview=True, select=("ALL",))

HEADER = "import torch\nfrom torch.distributed import all_reduce as reduce_all\n\n"

BLOCKS = [
    "def view_{i}(x):\n    y = x.transpose(1, 2)\n    return y.view(-1)\n",
    "@torch.no_grad()\ndef narrow_{i}(x):\n    return x.narrow(1, 1, 2).view(-1)\n",
    "class Block{i}(torch.nn.Module):\n    def forward(self, x):\n"
    "        return x.permute(0, 2, 1).view(x.shape[0], -1)\n",
    "if torch.cuda.is_available():\n    DEVICE_{i} = 'cuda'\nelse:\n    DEVICE_{i} = 'cpu'\n",
    "try:\n    import numpy as np_{i}\nexcept ImportError:\n    np_{i} = None\n",
    "DOC_{i} = '''\ndef not_code(x):\n    return x.t().view(-1)\n'''\n",
    "TABLE_{i} = [\n    1,\n2,\n]\n",
    "def scaled_{i}(x):\n    return (x.t()\n        .view(-1))\n",
    "# a comment at column 0\n\n",
    "def made_{i}():\n    reduce_all(torch.randn(2, 3).t())\n",
]


def program(count: int, newline: str = "\n") -> str:
    text = HEADER + "\n".join(BLOCKS[i % len(BLOCKS)].format(i=i) for i in range(count))
    return text.replace("\n", newline)


def keys(result) -> list[tuple]:
    return [(f.code, f.line, f.column, f.end_line, f.end_column, f.message)
            for f in result.findings]


def shrink(patch) -> None:
    patch.setattr(segments, "WHOLE_MARKS", 100)
    patch.setattr(segments, "SEGMENT_MARKS", 100)
    patch.setattr(segments, "PART_MARKS", 200)


@pytest.fixture
def small(monkeypatch):
    shrink(monkeypatch)


def whole(text: str, settings: Settings = SETTINGS):
    return lint_source(text, "m.py", settings)


@pytest.mark.parametrize("newline", ["\n", "\r\n"])
def test_segments_give_the_findings_of_the_whole_text(monkeypatch, newline):
    text = program(60, newline)
    expected = whole(text)
    assert not expected.errors and len(expected.findings) >= 20
    shrink(monkeypatch)
    parts = list(segments.segments(text))
    assert len(parts) >= 3 and all(part.error is None for part in parts)
    got = whole(text)
    assert not got.errors
    assert keys(got) == keys(expected)
    # the imports of the first segment name torch in the others
    made = [line for line in range(1, len(text.splitlines()) + 1)
            if "reduce_all(torch" in text.splitlines()[line - 1]]
    assert len(made) == 6 and {f.line for f in got.findings} >= set(made)


def test_every_segment_is_whole_statements_numbered_as_in_the_file(small, monkeypatch):
    text = program(60)
    statements = [(node.lineno, type(node).__name__) for node in ast.parse(text).body]
    for size in range(40, 200, 3):  # cuts fall before every kind of block in turn
        monkeypatch.setattr(segments, "SEGMENT_MARKS", size)
        monkeypatch.setattr(segments, "PART_MARKS", 400)
        seen = []
        for part in segments.segments(text):
            assert part.error is None, (size, part.error)
            own = [node for node in part.tree.body
                   if (node.lineno, type(node).__name__) not in seen]
            seen.extend((node.lineno, type(node).__name__) for node in own)
            # the imports of the segments before it come first
            assert all(isinstance(node, (ast.Import, ast.ImportFrom))
                       for node in part.tree.body[:len(part.tree.body) - len(own)])
        assert seen == statements, size


def test_a_string_that_holds_code_at_column_0_is_not_cut(small):
    text = program(8) + "BIG = '''\n" + "def f(x):\n    return x.t().view(-1)\n" * 20 + \
        "'''\n" + "def g(x):\n    return x.t().view(-1)\n"
    result = whole(text)
    assert not result.errors
    last = len(text.splitlines())
    assert [f.line for f in result.findings if f.line > last - 3] == [last]
    assert not any(8 < f.line < last - 2 for f in result.findings
                   if f.line > len(program(8).splitlines()))


def test_a_syntax_error_deep_in_a_large_text_is_reported_at_its_line(small):
    text = program(40) + "def broken(x):\n    return x.view(-1) +\n" + program(10)[len(HEADER):]
    line = next(i for i, row in enumerate(text.splitlines(), 1) if row.endswith(") +"))
    expected = lint_source(text, "m.py", SETTINGS)  # the small sizes: segmented
    assert [(e.kind, e.line) for e in expected.errors] == [("syntax", line)]
    assert not expected.findings
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(segments, "WHOLE_MARKS", 10 ** 9)
        assert [(e.line, e.message) for e in whole(text).errors] == \
            [(e.line, e.message) for e in expected.errors]


def test_a_part_that_cannot_be_cut_within_the_limit_is_e903_naming_it(small):
    long_call = "x = torch.randn(4, 4)\ny = f(\n" + "    x.t(),\n" * 200 + ")\n"
    text = program(10) + long_call
    line = len(program(10).splitlines()) + 2
    result = whole(text)
    assert [(e.kind, e.line) for e in result.errors] == [("limit", line)]
    assert "no place to cut within" in result.errors[0].message


def test_the_limit_is_counted_in_marks_not_estimated_from_characters(small):
    """A class of sparse code (long strings: many characters per mark) under the limit in
    marks is checked, though the text's average density would put it over in characters."""
    prose = '    """' + "words " * 300 + '"""\n'
    sparse = "class Sparse(torch.nn.Module):\n" + prose + \
        "    def forward(self, x):\n        return x.t().view(-1)\n" + prose
    text = program(200) + sparse
    assert segments.marks(sparse) < segments.PART_MARKS
    assert len(sparse) > segments.PART_MARKS * len(text) / segments.marks(text)
    result = whole(text)
    assert not result.errors
    assert program(200).count("\n") + 4 in [f.line for f in result.findings]


def test_a_statement_past_the_limit_is_e903_unless_max_file_size_is_0():
    text = "z = [" + "1, " * 70000 + "]\n" + "import torch\nx = torch.randn(2, 3)\n" \
        "y = x.t().view(-1)\n"
    assert segments.marks(text) > segments.PART_MARKS  # the real limits
    assert [(e.kind, e.line) for e in whole(text).errors] == [("limit", 1)]
    unlimited = whole(text, Settings(preview=True, select=("ALL",), max_file_size=0))
    assert not unlimited.errors and [f.line for f in unlimited.findings] == [4]
    data = text.split("\nimport")[0] + "\n"  # no rule analyses it: its syntax alone
    assert [(e.kind, e.line) for e in whole(data).errors] == [("limit", 1)]
    assert not whole(data, Settings(max_file_size=0)).errors


def test_a_text_no_rule_analyses_is_still_parsed_for_its_errors(small):
    text = "values = [\n" + "    1,\n" * 100 + "]\nx = = 1\n"
    result = whole(text)
    assert [(e.kind, e.line) for e in result.errors] == [("syntax", 103)]
    assert not whole("values = [\n" + "    1,\n" * 100 + "]\n").errors


def test_is_valid_agrees_with_the_parser(small):
    good = program(30)
    assert segments.is_valid(good)
    assert not segments.is_valid(good + "def f(:\n    pass\n")
    assert "def view_10(x):" in good
    assert not segments.is_valid(good.replace("def view_10(x):", "def view_10(x:"))


def test_a_fix_of_a_large_text_is_the_fix_of_the_whole(monkeypatch):
    text = program(30)
    expected = fix_source(text, "m.py", SETTINGS, unsafe=True)
    shrink(monkeypatch)
    got = fix_source(text, "m.py", SETTINGS, unsafe=True)
    assert expected.applied > 0
    assert (got.text, got.applied) == (expected.text, expected.applied)
