"""Bad and unusual files: each gets one clear diagnostic or is handled, never a traceback, and
the exit code is 2 whenever a file could not be checked.

Runs as root here, so chmod cannot make a file unreadable: unreadability is produced by paths
that cannot be opened as files (a FIFO, a socket-like device, a directory named x.py) and by
monkeypatching `open`/`os.scandir` inside contiglint.files to raise PermissionError.
"""
from __future__ import annotations

import errno
import json
import os
import subprocess
import sys
import time
from dataclasses import replace

import pytest

import contiglint.discovery as discovery
import contiglint.files as files
from contiglint.engine import lint_source
from contiglint.runner import RunOptions, process_files, run
from tests.clitools import BAD, EXAMPLE_CONFIG, EXAMPLE_SELECT, contiglint, environment

BAD_AT = ("CTG101", 4, 22)  # BAD: line 4, column 22 (the `.view` of the transposed tensor)
LATIN1 = b"# -*- coding: latin-1 -*-\nimport torch\ns = 'caf\xe9'\nx = torch.randn(2, 3, 4)\n" \
    b"y = x.transpose(1, 2).view(2, 12)\n"
TABS = "import torch\ndef f():\n\tx = torch.randn(2, 3, 4)\n\ty = x.transpose(1, 2).view(2, 12)\n"
WIDE = "import torch\nx = torch.randn(2, 3, 4)\n" \
    "y = {'\u00e9\u65e5': x.transpose(1, 2).view(2, 12)}\n"
MIXED = "import torch\r\n\nx = torch.randn(2, 3, 4)\ry = x.transpose(1, 2).view(2, 12)\r\n"
DEEP_FOR_ANALYSIS = "import torch\nx = " + "+".join(["torch.randn(2, 3).t()"] * 900) + \
    "\ny = x.view(6)\n"  # a sink token, so the prefilter lets the analysis run
DEEP_FOR_PARSER = "import torch\nx = " + "-" * 5000 + "torch.randn(2, 3)\n"

# name -> (bytes, what must be reported): a finding (code, line, column), an error
# (code, line, words in the message), or nothing.
KINDS = {
    "syntax_error.py": (b"import torch\nx = torch.randn(2)\ndef f(:\n    pass\n",
                        ("E999", 3, "invalid syntax")),
    "syntax_without_tokens.py": (b"def f(:\n", ("E999", 1, "invalid syntax")),
    "python2.py": (b'import torch\nprint "hello"\n', ("E999", 2, "Missing parentheses")),
    "python2_except.py": (b"try:\n    pass\nexcept Exception, e:\n    pass\n",
                          ("E999", 3, "parenthes")),
    "empty.py": (b"", None),
    "comments_only.py": (b"# a comment\n#\n# the last one has no newline", None),
    "blank_lines.py": (b"\n\n   \n\t\n", None),
    "bom.py": (b"\xef\xbb\xbf" + BAD.encode(), BAD_AT),
    "crlf.py": (BAD.replace("\n", "\r\n").encode(), BAD_AT),
    "cr_only.py": (BAD.replace("\n", "\r").encode(), BAD_AT),
    "mixed_newlines.py": (MIXED.encode(), BAD_AT),
    "latin1_cookie.py": (LATIN1, ("CTG101", 5, 22)),
    "not_utf8.py": (b"import torch\nx = '\xff'\n", ("E902", 2, "byte 0xff is not valid utf-8")),
    "unknown_cookie.py": (b"# coding: klingon\nx = 1\n", ("E902", 1, "unknown encoding")),
    "tabs.py": (TABS.encode(), ("CTG101", 4, 23)),
    "wide_characters.py": (WIDE.encode(), ("CTG101", 3, 29)),
    # 150 kB on one line: checked whole (a statement of over 64k marks is E903: test_segments)
    "long_line.py": (("z = [" + "1, " * 50000 + "]\n" + BAD).encode(), ("CTG101", 5, 22)),
    "deep_for_analysis.py": (DEEP_FOR_ANALYSIS.encode(), ("E900", 1, "too deeply nested")),
    "deep_for_parser.py": (DEEP_FOR_PARSER.encode(), ("E999", 1, "too deeply nested")),
    "binary_elf.py": (b"\x7fELF\x02\x01\x01\x00" + bytes(range(1, 128)) * 3,
                      ("E999", 1, "null bytes")),
    "binary_random.py": (bytes(range(256)) * 8, ("E902", 2, "not valid utf-8")),  # 0x0a: line 2
    "m\u00f3dulo_\u65e5\u672c.py": (BAD.encode(), BAD_AT),
    "dir.py/inside.py": (BAD.encode(), BAD_AT),  # a directory named *.py is walked
}


def build(root) -> dict[str, object]:
    """Write every kind, plus links, a FIFO and a file name that is not UTF-8; return
    path relative to root -> expectation."""
    expected = {}
    for name, (data, expectation) in KINDS.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
        expected[name] = expectation
    os.symlink("bom.py", root / "link_to_bom.py")
    expected["link_to_bom.py"] = BAD_AT
    os.symlink("loop.py", root / "loop.py")
    expected["loop.py"] = ("E902", 1, "symlink loop")
    os.symlink("missing.py", root / "dangling.py")
    expected["dangling.py"] = ("E902", 1, "No such file")
    os.mkfifo(root / "fifo.py")  # opening it would block: it must never be opened
    expected["fifo.py"] = ("E902", 1, "not a regular file")
    undecodable = os.fsdecode(b"\xff\xfename.py")  # a file name that is not UTF-8
    (root / undecodable).write_bytes(BAD.encode())
    expected[undecodable] = BAD_AT
    return expected


def reported(findings_and_errors, root) -> dict[str, list[tuple]]:
    """Path relative to root (None: as printed) -> [(code, line, column, message)]."""
    found: dict[str, list[tuple]] = {}
    for code, path, line, column, message in findings_and_errors:
        name = os.path.normpath(path) if root is None else os.path.relpath(path, root)
        found.setdefault(name, []).append((code, line, column, message))
    return found


def check_expectations(found, expected):
    for name, expectation in expected.items():
        got = found.get(name, [])
        if expectation is None:
            assert got == [], (name, got)
            continue
        code, line, third = expectation
        assert len(got) == 1, (name, got)  # one diagnostic per file, never repeated
        assert got[0][:2] == (code, line), (name, got)
        if isinstance(third, int):
            assert got[0][2] == third, (name, got)
        else:
            assert third in got[0][3], (name, got)
    assert set(found) <= set(expected), set(found) - set(expected)


def test_every_kind_of_file_in_process(tmp_path):
    expected = build(tmp_path)
    result = run([str(tmp_path)], EXAMPLE_CONFIG, RunOptions(jobs=1))
    codes = {"syntax": "E999", "io": "E902", "internal": "E900"}
    items = [(f.code, f.path, f.line, f.column, f.message) for f in result.findings] + \
        [(codes[e.kind], e.path, e.line, e.column, e.message) for e in result.all_errors]
    check_expectations(reported(items, tmp_path), expected)


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_every_kind_of_file_through_the_cli(tmp_path, jobs):
    expected = build(tmp_path / "tree")
    env = environment()
    env["PYTHONIOENCODING"] = "utf-8"  # strict: an unencodable path must not crash the output
    for fmt in ("json", "text"):
        process = subprocess.run(
            [sys.executable, "-m", "contiglint", *EXAMPLE_SELECT, "--no-cache", "-j", jobs,
             "--format", fmt, "."], cwd=tmp_path / "tree", env=env, capture_output=True,
            timeout=300)
        stderr = process.stderr.decode("utf-8", "replace")
        assert process.returncode == 2, stderr
        assert "Traceback" not in stderr and "Traceback" not in process.stdout.decode()
    data = json.loads(subprocess.run(
        [sys.executable, "-m", "contiglint", *EXAMPLE_SELECT, "--no-cache", "-j", jobs,
         "--format", "json", "."],
        cwd=tmp_path / "tree", env=env, capture_output=True, timeout=300).stdout)
    items = [(d["code"], d["path"], d["line"], d["column"], d["message"]) for d in data]
    check_expectations(reported(items, None), expected)


def test_text_output_escapes_an_unencodable_path(tmp_path):
    (tmp_path / os.fsdecode(b"\xffbad.py")).write_bytes(BAD.encode())
    (tmp_path / "\u65e5\u672c.py").write_bytes(BAD.encode())
    env = environment()
    env["PYTHONIOENCODING"] = "ascii"
    process = subprocess.run([sys.executable, "-m", "contiglint", *EXAMPLE_SELECT, "--no-cache",
                              "."],
                             cwd=tmp_path, env=env, capture_output=True, timeout=120)
    assert process.returncode == 1 and b"Traceback" not in process.stderr
    assert b"\\udcffbad.py:4:22: CTG101" in process.stdout
    assert b"\\u65e5\\u672c.py:4:22: CTG101" in process.stdout


def test_huge_file_completes_in_reasonable_time():
    # 50k lines of realistic functions (a generated model file): analysis is linear, and the
    # bound is loose enough for a loaded CI machine while catching quadratic behaviour.
    block = ("def block_{i}(x):\n    y = torch.randn(2, 3, 4).transpose(1, 2)\n"
             "    if x is not None:\n        y = y + x\n    z = y.view(2, 12)\n"
             "    w = z.reshape(4, 6).t()\n    return w.contiguous()\n\n")
    text = "import torch\n\n" + "".join(block.format(i=i) for i in range(50000 // 8))
    assert text.count("\n") >= 50000
    start = time.perf_counter()
    settings = replace(EXAMPLE_CONFIG.settings, max_file_size=0)  # 1.1 MB: over the default
    result = lint_source(text, "huge.py", settings)
    elapsed = time.perf_counter() - start
    assert result.errors == [] and len(result.findings) == 50000 // 8
    assert elapsed < 120, f"50k lines took {elapsed:.1f}s"


def test_named_paths_that_are_not_files(tmp_path):
    (tmp_path / "pkg.py").mkdir()
    result = run([str(tmp_path / "missing.py"), "/dev/null"], EXAMPLE_CONFIG, RunOptions(jobs=1))
    messages = {e.path: e.message for e in result.all_errors}
    assert "No such file" in messages[str(tmp_path / "missing.py")]
    assert "not a regular file" in messages["/dev/null"]  # a device is never read
    error = files.read_source(str(tmp_path / "pkg.py"))
    assert error.kind == "io" and "a directory" in error.message


def test_unreadable_file_and_directory(tmp_path, monkeypatch):
    (tmp_path / "secret.py").write_text(BAD)
    (tmp_path / "locked").mkdir()
    (tmp_path / "locked" / "inner.py").write_text(BAD)
    (tmp_path / "open.py").write_text(BAD)
    os.chmod(tmp_path / "secret.py", 0)
    os.chmod(tmp_path / "locked", 0)
    real_open, real_scandir = open, os.scandir

    def denying_open(path, *args, **kwargs):  # root ignores mode 000: deny like a user's OS
        if str(path).endswith("secret.py"):
            raise PermissionError(errno.EACCES, "Permission denied", str(path))
        return real_open(path, *args, **kwargs)

    def denying_scandir(path):
        if str(path).endswith("locked"):
            raise PermissionError(errno.EACCES, "Permission denied", str(path))
        return real_scandir(path)

    monkeypatch.setattr(files, "open", denying_open, raising=False)
    monkeypatch.setattr(files.os, "scandir", denying_scandir)
    try:
        result = run([str(tmp_path)], EXAMPLE_CONFIG, RunOptions(jobs=1))
    finally:
        os.chmod(tmp_path / "secret.py", 0o644)
        os.chmod(tmp_path / "locked", 0o755)
    errors = {os.path.basename(e.path): e.message for e in result.all_errors}
    assert errors == {"secret.py": "cannot read: Permission denied",
                      "locked": "cannot read: Permission denied"}
    assert [os.path.basename(f.path) for f in result.findings] == ["open.py"]


def test_paths_that_vanish_during_the_run(tmp_path, monkeypatch):
    for name in ("a.py", "b.py", "c.py"):
        (tmp_path / name).write_text(BAD)
    found, errors = discovery.discover([str(tmp_path)])
    os.unlink(tmp_path / "b.py")  # gone between discovery and reading
    outcomes = process_files(found, EXAMPLE_CONFIG, RunOptions(jobs=1))
    assert [len(o.findings) for o in outcomes] == [1, 0, 1]
    assert "No such file" in outcomes[1].errors[0].message
    # A directory that disappears while it is walked.
    (tmp_path / "sub").mkdir()
    real_scandir = os.scandir

    def vanishing(path):
        if str(path).endswith("sub"):
            raise FileNotFoundError(errno.ENOENT, "No such file or directory", str(path))
        return real_scandir(path)

    monkeypatch.setattr(files.os, "scandir", vanishing)
    found, errors = discovery.discover([str(tmp_path)])
    assert [os.path.basename(e.path) for e in errors] == ["sub"]
    assert "No such file" in errors[0].message and len(found) == 2
    monkeypatch.undo()
    # A file deleted after it was read, before the fix is written: reported, not recreated.
    real_write = files.write_source

    def delete_then_write(source, text):
        if source.path.endswith("c.py"):
            os.unlink(source.path)
        return real_write(source, text)

    monkeypatch.setattr("contiglint.runner.write_source", delete_then_write)
    outcomes = process_files([str(tmp_path / "a.py"), str(tmp_path / "c.py")], EXAMPLE_CONFIG,
                             RunOptions("fix", jobs=1))
    assert outcomes[0].fixed == 1 and outcomes[1].fixed == 0
    assert outcomes[1].errors[0].kind == "io" and not (tmp_path / "c.py").exists()


def test_a_syntax_error_is_reported_once_and_the_rest_still_checked(tmp_path):
    (tmp_path / "a_broken.py").write_text("import torch\nx = torch.randn(2).t(\n")
    (tmp_path / "b_bad.py").write_text(BAD)
    process = contiglint("--no-cache", ".", cwd=tmp_path)
    assert process.returncode == 2
    assert process.stderr.count("a_broken.py:") == 1 and "E999" in process.stderr
    assert "b_bad.py:4:22: CTG101" in process.stdout


def _nested(depth: int, kind: str) -> str:
    if kind == "unary":
        return "x = " + "-" * depth + "1\n"
    if kind == "parentheses":
        return "x = " + "(" * depth + "1" + ")" * depth + "\n"
    if kind == "lists":
        return "x = " + "[" * depth + "]" * depth + "\n"
    if kind == "calls":
        return "x = " + "f(" * depth + ")" * depth + "\n"
    if kind == "blocks":
        return "".join(" " * i + "if x:\n" for i in range(depth)) + " " * depth + "pass\n"
    return "x = " + " + ".join(["y"] * depth) + "\n"  # a left-leaning chain of BinOps


def _mutated_programs() -> list[str]:
    """The robustness fuzz tests' seed programs, each also mutated six ways."""
    import random

    from tests.fuzz_inputs import MUTATORS, seed_programs

    rng, texts = random.Random(16), []
    for text in seed_programs().values():
        texts += [text] + [rng.choice(MUTATORS)(text, rng) for _ in range(6)]
    return texts


SYNTAX_TEXTS = [
    *(data.decode("utf-8", "replace") for data, _ in KINDS.values()),
    DEEP_FOR_PARSER.replace("torch", "numpy"),
    "nonlocal x\n",  # the symbol table refuses it; the parser does not
    "def f(a, a):\n    pass\n",
    "def f():\n    x = 1\n    global x\n",
    "class C:\n    def f(self):\n        nonlocal y\n",
    "return 1\n", "yield 1\n", "await f()\n", "break\n",  # refused only by the compiler
    "x = 'bad \\d escape'\n", "def f(:\n", "a = \x00\n", "x = 1\n" * 1000,
    "from __future__ import braces\n", "f'{x!z}'\n", "lambda: (yield)\n", "del f()\n",
    "print(*)\n", "x = 1 +\n", "if True:\n pass\n  x\n", "\\\n",
    *_mutated_programs(),
    *(_nested(depth, kind) for kind in ("unary", "parentheses", "lists", "calls", "blocks",
                                        "chain")
      for depth in (10, 99, 100, 101, 199, 200, 201, 2980, 2983, 2984, 2985, 2986, 5000)),
]


@pytest.mark.parametrize("text", SYNTAX_TEXTS, ids=range(len(SYNTAX_TEXTS)))
def test_the_syntax_check_without_a_tree_reports_what_parse_reports(text):
    """`syntax_error` (for the texts no rule analyses) must answer exactly as `parse`, whose
    tree the analysed texts need: the same error, or none."""
    from contiglint.engine import parse, syntax_error

    assert syntax_error(text, "m.py") == parse(text, "m.py")[1]


def test_the_syntax_check_without_a_tree_agrees_with_parse_on_this_repository():
    from contiglint.engine import parse, syntax_error

    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    for folder, _, names in os.walk(os.path.join(root, "contiglint")):
        for name in names:
            if name.endswith(".py"):
                with open(os.path.join(folder, name), encoding="utf-8") as handle:
                    text = handle.read()
                assert syntax_error(text, name) is None is parse(text, name)[1], name
