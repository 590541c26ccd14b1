"""The cheap checks that stand in for costly ones must answer the same: each is
checked against what it replaces, on every case the repository holds."""
from __future__ import annotations

import ast
from pathlib import Path

from contiglint.catalogue import contracts as catalogue
from contiglint.layout.flow.compiled import _names_jit
from contiglint.layout.sinks.contracts import _may_load

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
