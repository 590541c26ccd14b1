"""`contiglint explain`: what it says of the README example, of every fixture (held against the
tensors torch really makes when the fixture runs) and of a module written like real code; its
errors on bad places."""
from __future__ import annotations

import importlib.util
import runpy
import json
import sys
from pathlib import Path

import pytest

from contiglint.layout.explain.cli import main, parse_place
from contiglint.layout.explain.query import analyze
from contiglint.settings import Settings
from tests.explain_truth import bound_tensors, check_claims

torch = pytest.importorskip("torch")

ROOT = Path(__file__).resolve().parent.parent
EXAMPLE = ROOT / "examples" / "attention.py"
FIXTURES = sorted(p for p in (ROOT / "fixtures").glob("CTG*/*.py")
                  if not p.name.endswith(".fixed.py"))


def explain_json(capsys, *argv) -> dict:
    assert main([*argv, "--format", "json"]) == 0
    return json.loads(capsys.readouterr().out)


def load(path: Path, name: str):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    try:
        spec.loader.exec_module(module)
    finally:
        sys.modules.pop(name, None)
    return module


def test_readme_example_names_the_transpose_and_the_finding(capsys):
    data = explain_json(capsys, "--extend-select", "CTG101", f"{EXAMPLE}:36")
    by_text = {t["expression"]: t for t in data["tensors"]}
    merged = by_text["out.transpose(1, 2)"]["layouts"][0]
    assert merged["contiguous"] == "no"
    assert merged["shape"] == ["2", "16", "8", "8"]  # the sizes of the call on line 42
    assert merged["out_of_order"] == "dim 1↔dim 2"
    assert "`.transpose(1, 2)` on line 36" in merged["why"]
    chain = by_text["out.transpose(1, 2)"]["chain"]
    assert [(s["line"], s["op"]) for s in chain] == [(35, "attn @ v"), (36, ".transpose(1, 2)")]
    # the result of the view (which raises) is not claimed
    assert by_text["out"]["layouts"][0]["contiguous"] == "unknown"
    assert [f["code"] for f in data["findings"]] == ["CTG101"]
    witness = data["findings"][0]["witness"]  # the sizes of the call on line 42
    assert (witness["sizes"], witness["strides"], witness["target"]) == \
        ([2, 16, 8, 8], [1024, 8, 128, 1], [2, 16, 64])


def test_readme_example_against_torch():
    analysis = analyze(EXAMPLE.read_text(), str(EXAMPLE), Settings())
    module = load(EXAMPLE, "explain_example")
    block = module.MultiHeadSelfAttention(dim=64, num_heads=8)
    seen = bound_tensors(str(EXAMPLE), lambda: _raises(block, torch.randn(2, 16, 64)))
    checked, wrong = check_claims(analysis, seen)
    assert wrong == []
    assert checked >= 6  # qkv, q, k, v, attn (twice), out


def _raises(block, x):
    with pytest.raises(RuntimeError, match="view size is not compatible"):
        block(x)


@pytest.mark.parametrize("path", FIXTURES, ids=lambda p: f"{p.parent.name}/{p.stem}")
def test_fixture_claims_hold_under_torch(path):
    analysis = analyze(path.read_text(encoding="utf-8"), str(path), Settings())
    module = load(path, f"explain_fixture_{path.parent.name}_{path.stem}")
    cases = [getattr(module, n) for n in dir(module) if n.startswith("case_")]
    seen: dict = {}
    for case in cases:
        observed = bound_tensors(str(path), case)
        for key, reals in observed.items():
            seen.setdefault(key, []).extend(reals)
    checked, wrong = check_claims(analysis, seen)
    assert wrong == []


def test_fixtures_give_explain_claims_to_check():
    """The comparison above checks something: over the fixtures, many claims."""
    total = 0
    for path in FIXTURES[:6]:
        analysis = analyze(path.read_text(encoding="utf-8"), str(path), Settings())
        module = load(path, f"explain_count_{path.parent.name}_{path.stem}")
        for name in dir(module):
            if name.startswith("case_"):
                total += check_claims(analysis, bound_tensors(
                    str(path), getattr(module, name)))[0]
    assert total >= 30


RUNTIME_BUGS = ROOT / "tests" / "runtime_bugs"
NOT_IN_PROCESS = ("distributed", "spawn", "cuda", "fork", "subprocess")  # need more than one
REAL_LIKE = sorted(p for p in RUNTIME_BUGS.glob("[a-z]*.py") if not any(
    word in p.read_text(encoding="utf-8") for word in NOT_IN_PROCESS))


@pytest.mark.parametrize("path", REAL_LIKE, ids=lambda p: p.stem)
def test_real_code_claims_hold_under_torch(path, monkeypatch):
    """Re-creations of real bugs (fairseq, HF, timm... patterns, tests/runtime_bugs/), run as
    scripts: what explain claims of their named tensors is what torch made."""
    monkeypatch.syspath_prepend(str(RUNTIME_BUGS))
    monkeypatch.setattr(sys, "argv", [str(path)])
    analysis = analyze(path.read_text(encoding="utf-8"), str(path), Settings())
    seen = bound_tensors(str(path), lambda: runpy.run_path(str(path), run_name="__main__"))
    checked, wrong = check_claims(analysis, seen)
    assert wrong == []


ALL_RULES = Settings(select=("CTG",), extend_select=tuple(
    rule.code for rule in __import__("contiglint.rules", fromlist=["all_rules"]).all_rules()))


@pytest.mark.parametrize("path", FIXTURES[::3], ids=lambda p: f"{p.parent.name}/{p.stem}")
def test_observing_changes_no_finding(path):
    """The observed analysis (explain, the server) reports what `contiglint` reports."""
    from contiglint.engine import lint_source

    text = path.read_text(encoding="utf-8")
    assert analyze(text, str(path), ALL_RULES).result.findings == \
        lint_source(text, str(path), ALL_RULES).findings


@pytest.mark.parametrize("place, message", [
    ("examples/attention.py", "is not FILE:LINE or FILE:LINE:COL"),
    ("examples/attention.py:x", "the line must be a whole number from 1, not 'x'"),
    ("examples/attention.py:0", "the line must be a whole number from 1, not '0'"),
    ("examples/attention.py:3:-1", "the column must be a whole number from 1, not '-1'"),
    ("examples/missing.py:3", "examples/missing.py: no such file"),
    ("examples/attention.py:99", "line 99 is past the end of the file (42 lines)"),
    ("examples/attention.py:36:83", "column 83 is past the end of the line (81 characters)"),
])
def test_bad_places_are_named(place, message, capsys, monkeypatch):
    monkeypatch.chdir(ROOT)
    assert main([place]) == 2
    assert message in capsys.readouterr().err


def test_a_file_that_does_not_parse_is_an_error(tmp_path, capsys):
    path = tmp_path / "broken.py"
    path.write_text("def f(:\n    pass\n")
    assert main([f"{path}:1"]) == 2
    assert "cannot parse" in capsys.readouterr().out


def test_unknown_codes_are_named(capsys):
    assert main(["--select", "XYZ1", f"{EXAMPLE}:36"]) == 2
    assert "XYZ1" in capsys.readouterr().err


def test_no_tensor_at_the_place_says_so(capsys):
    assert main([f"{EXAMPLE}:12"]) == 0  # `import torch`
    assert capsys.readouterr().out.strip() == \
        f"{EXAMPLE}:12: no tensor the analysis knows of here"


def test_place_parsing():
    assert parse_place("a/b.py:36") == ("a/b.py", 36, None)
    assert parse_place("C:/x/b.py:36:4") == ("C:/x/b.py", 36, 4)


BRANCHES = '''import torch


def pick(x, flag):
    if flag:
        y = x.t()
    else:
        y = x
    return y


def helper(t):
    u = t * 2
    return u


def main(flag):
    a = torch.randn(3, 4)
    pick(a, flag)
    helper(a)
    helper(a.t())
'''


def test_some_paths_and_call_contexts_are_said_as_such(tmp_path, capsys):
    path = tmp_path / "branches.py"
    path.write_text(BRANCHES)
    assert main([f"{path}:9:12"]) == 0
    text = capsys.readouterr().out
    # non-contiguous on one branch only: not claimed either way; its dims are that branch's
    assert "contiguous: unknown: non-contiguous on some paths only" in text
    assert "shape: (4, 3) (on the paths where it is non-contiguous)" in text
    data = explain_json(capsys, f"{path}:13")
    [u] = data["tensors"]
    by_context = {layout["context"]: layout for layout in u["layouts"]}
    assert by_context["in the call from line 20"]["contiguous"] == "yes"
    assert by_context["in the call from line 21"]["contiguous"] == "no"
    assert by_context["in the call from line 21"]["shape"] == ["4", "3"]
    [step] = [s for s in u["chain"] if s["op"] == "t * 2"]
    assert step["layout"]["non_contiguous_on_some_paths"] is True


def test_a_choice_by_a_flag_is_explained_by_its_branches(tmp_path, capsys):
    """`v = a if p else b` runs as an `if` statement (the flow pass correlates later tests of
    `p`): the expression's step still shows what its branches gave."""
    path = tmp_path / "choice.py"
    path.write_text("import torch\n\n\ndef f(p, B, N, C):\n    x = torch.randn(B, N, C)\n"
                    "    v = x.transpose(1, 2) if p else x.contiguous()\n"
                    "    return v.view(B, -1)\n")
    data = explain_json(capsys, f"{path}:7")
    steps = [s for u in data["tensors"] for s in u["chain"] if " if p else " in s["op"]]
    assert steps and all(s["layout"] is not None and s["layout"]["non_contiguous_on_some_paths"]
                         for s in steps)


def test_a_text_no_rule_analyses_still_has_its_layouts(tmp_path, capsys):
    """No rule could fire on it (the prefilter skips it, as `contiglint` does): no finding,
    but the layouts are still there to be asked about."""
    from contiglint.engine import lint_source

    text = "import torch\n\nx = torch.randn(2, 3)\ny = x.t()\nprint(y)\n"
    path = tmp_path / "plain.py"
    path.write_text(text)
    assert lint_source(text, str(path)).findings == []
    data = explain_json(capsys, f"{path}:4")
    [y] = data["tensors"]
    assert y["layouts"][0]["strides"] == ["1", "3"] and y["layouts"][0]["contiguous"] == "no"
    assert data["findings"] == []


CORPUS = sorted((ROOT / "tests" / "eval").glob("**/*.py"))[::20]


def test_every_line_of_real_corpus_modules_is_explained_without_error():
    """Modules of the evaluation corpus (code from real projects): every line explained, a
    hover tried at every third column, the inlay hints of the file; nothing raises, and the
    tensors the engine knows are shown."""
    from contiglint import server_layout
    from contiglint.layout.explain.cli import explain_place

    shown = 0
    for path in CORPUS:
        text = path.read_text(encoding="utf-8")
        analysis = analyze(text, str(path), Settings())
        assert analysis.tree is not None, path
        lines = text.splitlines()
        for number, line in enumerate(lines, 1):
            explanation = explain_place(analysis, number, None)
            explanation.to_text(), explanation.to_json()
            shown += len(explanation.tensors)
            for column in range(1, len(line) + 1, 3):
                server_layout.hover_at(analysis, number, column)
        server_layout.inlay_hints(analysis, 1, len(lines))
    assert len(CORPUS) >= 20 and shown >= 50
