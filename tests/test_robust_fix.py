"""`--fix` never loses code: atomic writes that keep the file's bytes conventions, no write of
unparsable output or over a concurrent change, idempotence, and files that are either fully
old or fully new after the run is killed at a random moment."""
from __future__ import annotations

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
