"""The labels of the evaluation sets hold under torch: each set's truth script, run as its README
says, agrees with every label (a wrong `# hazard:` or `# bug-line` label fails here).

- tests/eval/ctgNNN/ (the first blind set): `python tests/eval/run_truth.py DIR`, one process
  per case; the hazard line must be where torch misbehaves, and a clean case must run clean.
- tests/eval/general/ctgNNN/ (the second blind set): `python tests/eval/general/_check_truth.py`.
- tests/boundary_bugs/NN_slug/: `python tests/boundary_bugs/check_truth.py NN`; buggy.py must
  fail, fixed.py must run clean.

(tests/eval/tuning/ has its own check in tests/test_general_flow.py.) Every case runs under
torch, hundreds of processes in all: slow, run by CI (`python -m pytest --run-slow`), one test
per directory so that the workers share them.
"""
from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("torch")

TESTS = Path(__file__).resolve().parent
EVAL = TESTS / "eval"
BOUNDARY = TESTS / "boundary_bugs"


def directories(root: Path, pattern: str) -> list[str]:
    return sorted(p.name for p in root.iterdir() if p.is_dir() and re.fullmatch(pattern, p.name))


def script(*args: object, cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, *map(str, args)], cwd=cwd, capture_output=True,
                          text=True, timeout=1800)


def shown(done: subprocess.CompletedProcess) -> str:
    return f"exit {done.returncode}\n{done.stdout[-6000:]}\n{done.stderr[-3000:]}"


def test_every_set_has_directories_to_check():
    assert len(directories(EVAL, r"ctg\d{3}")) >= 12
    assert len(directories(EVAL / "general", r"ctg\d{3}")) >= 4
    assert len(directories(BOUNDARY, r"\d\d_\w+")) >= 30


@pytest.mark.slow
@pytest.mark.parametrize("code", directories(EVAL, r"ctg\d{3}"))
def test_first_set_labels_hold_under_torch(code):
    done = script(EVAL / "run_truth.py", EVAL / code, "-j", "2", cwd=TESTS.parent)
    cases = re.search(r"^(\d+) cases \(", done.stdout, re.M)
    assert done.returncode == 0 and cases and int(cases.group(1)) > 0, shown(done)
    assert "truth and markers agree" in done.stdout and "UNCHECKED" not in done.stdout, \
        shown(done)


@pytest.mark.slow
@pytest.mark.parametrize("code", directories(EVAL / "general", r"ctg\d{3}"))
def test_general_set_labels_hold_under_torch(code):
    done = script(EVAL / "general" / "_check_truth.py", f"/{code}/", cwd=TESTS.parent)
    total = re.search(r"^cases=(\d+) hazards=\d+ clean=\d+ verified=(\d+) failed=0$", done.stdout,
                      re.M)
    assert done.returncode == 0 and total, shown(done)
    assert int(total.group(1)) > 0 and total.group(1) == total.group(2), shown(done)


@pytest.mark.slow
@pytest.mark.parametrize("bug", directories(BOUNDARY, r"\d\d_\w+"))
def test_boundary_bug_fails_and_its_fix_runs_clean(bug):
    done = script(BOUNDARY / "check_truth.py", bug, cwd=BOUNDARY)
    assert done.returncode == 0, shown(done)
    assert "summary: 1/1 bugs behave as expected" in done.stdout, shown(done)
