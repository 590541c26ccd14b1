"""`--fix` never loses code: atomic writes that keep the file's bytes conventions, no write of
unparsable output or over a concurrent change, idempotence, and files that are either fully
old or fully new after the run is killed at a random moment."""
from __future__ import annotations

import ast
import bisect
import json
import os
import random
import signal
import stat
import subprocess
import sys
import time

import pytest

from contiglint.engine import fix_source
from contiglint.runner import RunOptions, process_files
from tests.clitools import BAD, EXAMPLE_CONFIG, EXAMPLE_SELECT, FIXED, contiglint, environment
from tests.fixture_format import fixture_files
from tests.fuzz_inputs import KNOWN_CONFLICTS, REALISTIC_PROGRAMS

FIX = RunOptions("fix", jobs=1)


@pytest.mark.parametrize("prefix, newline, encoding, cookie", [
    (b"\xef\xbb\xbf", "\r\n", "utf-8", ""),
    (b"", "\r", "latin-1", "# -*- coding: latin-1 -*-"),
    (b"", "\n", "utf-8", "# caf\u00e9 \u65e5\u672c"),
])
def test_fix_keeps_bom_encoding_newlines_and_permissions(tmp_path, prefix, newline, encoding,
                                                         cookie):
    def render(text):
        return prefix + (cookie + "\n" + text).replace("\n", newline).encode(encoding)

    path = tmp_path / "m.py"
    path.write_bytes(render(BAD))
    os.chmod(path, 0o640)
    [outcome] = process_files([str(path)], EXAMPLE_CONFIG, FIX)
    assert outcome.fixed == 1 and outcome.errors == []
    assert path.read_bytes() == render(FIXED)
    assert stat.S_IMODE(os.stat(path).st_mode) == 0o640
    assert os.listdir(tmp_path) == ["m.py"]  # the temporary file was renamed, not left


def test_unparsable_fix_output_is_never_written(tmp_path, monkeypatch):
    path = tmp_path / "m.py"
    path.write_text(BAD)
    monkeypatch.setattr("contiglint.engine.apply_fixes",
                        lambda text, fixes, accepted=None: ("def f(:\n", 1))
    [outcome] = process_files([str(path)], EXAMPLE_CONFIG, FIX)
    assert outcome.fixed == 0 and path.read_text() == BAD
    assert [e.kind for e in outcome.errors] == ["internal"]
    assert "does not parse" in outcome.errors[0].message


def test_file_changed_on_disk_during_the_fix_is_not_overwritten(tmp_path, monkeypatch):
    path = tmp_path / "m.py"
    path.write_text(BAD)
    edited = BAD + "# saved by an editor meanwhile\n"

    def fix_while_an_editor_saves(text, *args, **kwargs):
        path.write_text(edited)
        return fix_source(text, *args, **kwargs)

    monkeypatch.setattr("contiglint.runner.fix_source", fix_while_an_editor_saves)
    [outcome] = process_files([str(path)], EXAMPLE_CONFIG, FIX)
    assert outcome.fixed == 0 and "changed on disk" in outcome.errors[0].message
    assert path.read_text() == edited


def test_fixing_twice_changes_nothing(tmp_path):
    sources = fixture_files()
    for number, source in enumerate(sources):
        (tmp_path / f"f{number:02d}.py").write_bytes(source.read_bytes())
    for name, text in REALISTIC_PROGRAMS.items():
        (tmp_path / f"r_{name}.py").write_text(text)
    # fixes known to fight (fuzz_inputs.py)
    ignore = ("--ignore", ",".join(KNOWN_CONFLICTS)) if KNOWN_CONFLICTS else ()
    first = contiglint("--fix", "--unsafe-fixes", "--no-cache", *ignore, ".", cwd=tmp_path)
    assert first.returncode in (0, 1), first.stderr
    after_first = {p.name: p.read_bytes() for p in tmp_path.glob("*.py")}
    assert "fixed" in first.stdout
    second = contiglint("--fix", "--unsafe-fixes", "--no-cache", *ignore, ".", cwd=tmp_path)
    assert second.returncode in (0, 1), second.stderr
    assert {p.name: p.read_bytes() for p in tmp_path.glob("*.py")} == after_first
    assert "fixed" not in second.stdout


def _program(number: int) -> str:
    """A distinct fixable file; some are long (a megabyte), so a write can be caught in the
    middle, while analysis stays cheap (one statement repeated)."""
    padding = "#" * 100 + "\n"
    return (f"import torch\n\nx = torch.randn(2, 3, 4)\ny{number} = x.transpose(1, 2)"
            f".view(2, 12)\n" + padding * (1 + (number % 5) * 2500))


@pytest.mark.parametrize("trial", range(6))
def test_interrupted_fix_leaves_every_file_old_or_new(tmp_path, trial):
    rng = random.Random(6000 + trial)
    count = 120
    old = {f"m{n:03d}.py": _program(n) for n in range(count)}
    new = {name: fix_source(text[:200], name, EXAMPLE_CONFIG.settings).text + text[200:]
           for name, text in old.items()}
    assert all(old[name] != new[name] for name in old)
    for name, text in old.items():
        (tmp_path / name).write_text(text)
    sig = rng.choice([signal.SIGINT, signal.SIGTERM])
    delay = rng.uniform(0.3, 3.0)
    process = subprocess.Popen(
        [sys.executable, "-m", "contiglint", *EXAMPLE_SELECT, "--fix", "--no-cache", "-j",
         rng.choice(["1", "2"]), "."], cwd=tmp_path, env=environment(), stdout=subprocess.PIPE,
        stderr=subprocess.PIPE, start_new_session=True)
    time.sleep(delay)
    try:
        os.killpg(process.pid, sig)  # like Ctrl-C or a CI timeout: the whole process group
    except ProcessLookupError:
        pass  # finished before the signal: every file must then be new
    process.communicate(timeout=120)
    _wait_until_gone(process.pid)
    states = {"old": 0, "new": 0}
    for name in old:
        content = (tmp_path / name).read_text()
        assert content in (old[name], new[name]), f"{name} is half written (trial {trial})"
        states["old" if content == old[name] else "new"] += 1
    leftovers = [p.name for p in tmp_path.iterdir() if p.name not in old]
    # SIGINT unwinds and removes a temporary file; only an uncatchable death could leave one,
    # and never in place of a source file.
    if sig == signal.SIGINT:
        assert leftovers == []
    assert all(name.startswith(".contiglint-") for name in leftovers), leftovers
    print(f"trial {trial}: {sig.name} after {delay:.2f}s: {states}")


def _wait_until_gone(group: int, timeout: float = 60) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            os.killpg(group, 0)
        except ProcessLookupError:
            return
        time.sleep(0.05)
    os.killpg(group, signal.SIGKILL)
    raise AssertionError("workers outlived the interrupted run")


STATEMENT_RULES = ("--select", "CTG106,CTG107,CTG109,CTG111", "--strict")
KERNEL = '''import torch
import torch.distributed as dist
import triton
import triton.language as tl


@triton.jit
def scale_kernel(x_ptr, n, BLOCK: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offsets, mask=offsets < n)
    tl.store(x_ptr + offsets, x * 2, mask=offsets < n)
'''
AWKWARD = {  # function body -> the rule whose statement-level fix it exercises
    "    scale_kernel[(1,)](\n        (a.t()\n         if flag else b.t()),\n"
    "        64, BLOCK=64)\n": "CTG106",
    "    scale_kernel[(1,)](a.t(  # the transposed input\n    ), 64, BLOCK=64)\n": "CTG106",
    "    scale_kernel[(1,)]((y := a.t()), 64, BLOCK=64)\n    return y\n": "CTG106",
    "    scale_kernel[(1,)](a.t(), *rest)\n": "CTG106",
    "    lib.read((a.t()\n              if flag else b.t()).data_ptr())\n": "CTG106",
    "    lib.read(a.t(  # transposed\n    ).data_ptr())\n": "CTG106",
    "    dist.all_reduce((a.t()  # the gradient\n                     if flag else b.t()))\n":
        "CTG107",
    "    dist.all_reduce((y := a.t()))\n    return y\n": "CTG107",
    "    dist.all_reduce(*[a.t()])\n": "CTG107",
    "    out = []\n    for x in rest:\n        out.append(x @ (a  # the weight\n"
    "                        .t().contiguous()))\n    return out\n": "CTG109",
    "    dist.all_reduce(a.t(  # transposed\n    ).contiguous())\n": "CTG111",
    "    dist.all_reduce((a  # the tensor\n                     ).t().contiguous())\n": "CTG111",
}


def awkward_program() -> str:
    return KERNEL + "".join(f"\n\ndef case_{number}(a, b, flag, rest, lib):\n{body}"
                            for number, body in enumerate(AWKWARD))


def test_multi_line_kernel_argument_json_report_is_written(tmp_path):
    """The issue's case: a copy-back fix of a parenthesised multi-line conditional kernel
    argument was built from text that does not parse (a LibCST traceback, no report)."""
    body = next(iter(AWKWARD))
    (tmp_path / "m.py").write_text(KERNEL + f"\n\ndef run(a, b, flag):\n{body}")
    process = contiglint("--format", "json", "--select", "CTG106", "--strict", "--no-cache",
                         "m.py", cwd=tmp_path)
    assert (process.returncode, process.stderr) == (1, ""), process.stderr
    [finding] = json.loads(process.stdout)
    assert finding["code"] == "CTG106" and finding["fix"]["edits"]
    content = "".join(edit["content"] for edit in finding["fix"]["edits"])
    assert "(a.t()\n" in content and "if flag else b.t()).copy_(tensor_contig)" in content


def test_awkward_arguments_get_statement_fixes_that_parse(tmp_path):
    """Multi-line, parenthesised, commented, starred and walrus arguments through every
    statement-level fix: each finding is reported, every fix that is offered parses, and
    `--fix` leaves only the findings that have none."""
    (tmp_path / "m.py").write_text(awkward_program())
    process = contiglint("--format", "json", "--no-cache", *STATEMENT_RULES, "m.py",
                         cwd=tmp_path)
    assert (process.returncode, process.stderr) == (1, ""), process.stderr
    findings = json.loads(process.stdout)
    starts = [line for line, text in enumerate(awkward_program().splitlines(), 1)
              if text.startswith("def case_")]
    reported = {bisect.bisect(starts, f["line"]) - 1: f for f in findings}
    assert {number: f["code"] for number, f in reported.items()} == dict(enumerate(
        AWKWARD.values()))
    unfixed = {number for number, f in reported.items() if f["fix"] is None}
    assert unfixed == {8}  # a starred argument: no one copy stands for `*[a.t()]`
    process = contiglint("--fix", "--unsafe-fixes", "--no-cache", *STATEMENT_RULES, "m.py",
                         cwd=tmp_path)
    assert process.returncode == 1 and process.stderr == "", process.stderr
    fixed = (tmp_path / "m.py").read_text()
    ast.parse(fixed)
    assert "if flag else b.t()).copy_(tensor_contig)" in fixed
    assert f"Found {len(AWKWARD)} problems ({len(AWKWARD) - 1} fixed, 1 remaining)." in \
        process.stdout


def test_a_fix_that_cannot_be_made_is_left_out_with_a_note(tmp_path):
    """Whatever makes building a statement-level fix fail (here LibCST, made to fail), the
    finding is reported without the fix, each such fix is named once on stderr, the report
    is written, and the other fixes apply."""
    shim = tmp_path / "shim"
    shim.mkdir()
    (shim / "sitecustomize.py").write_text(
        "import libcst\n\n\ndef broken(code, *args, **kwargs):\n"
        "    raise RuntimeError('injected failure')\n\n\nlibcst.parse_statement = broken\n")
    env = environment()
    env["PYTHONPATH"] = os.pathsep.join([str(shim), env["PYTHONPATH"]])
    text = KERNEL + "\n\ndef f(a, lib):\n    lib.read(a.t().data_ptr())\n    return " \
        "a.t().view(-1)\n"
    (tmp_path / "m.py").write_text(text)

    def cli(*args):
        return subprocess.run([sys.executable, "-m", "contiglint", "--no-cache", "--select",
                               "CTG101,CTG106", "--strict", *args, "m.py"], cwd=tmp_path,
                              capture_output=True, text=True, env=env, timeout=120)

    process = cli("--format", "json")
    findings = json.loads(process.stdout)
    assert [(f["code"], f["fix"] is None) for f in findings] == \
        [("CTG106", True), ("CTG101", False)]
    note = (f"contiglint: warning: m.py:{findings[0]['line']}:{findings[0]['column']}: CTG106: "
            "its fix is left out: its rewrite could not be made (RuntimeError: injected "
            "failure); please report this bug\n")
    assert (process.returncode, process.stderr) == (1, note)
    process = cli("--fix", "--unsafe-fixes", "--diff")
    assert process.returncode == 1 and process.stderr.startswith(note), process.stderr
    assert "Would fix 1 problem in 1 file." in process.stderr
    assert "+    return a.t().reshape(-1)" in process.stdout and "contig" not in process.stdout
