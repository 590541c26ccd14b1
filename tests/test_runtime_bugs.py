"""Every re-created bug in tests/runtime_bugs/ is reported by `contiglint run` exactly at its
`# bug-line`, with the expected codes, and nowhere else."""
from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

pytest.importorskip("torch")

BUGS = Path(__file__).parent / "runtime_bugs"
ROOT = Path(__file__).parent.parent
SCRIPTS = sorted(BUGS.glob("*.py"))
_MARK = re.compile(r"#\s*bug-line:\s*(?P<codes>[A-Z0-9, ]+)")


def expected(script: Path) -> set[tuple[int, str]]:
    found = set()
    for number, text in enumerate(script.read_text().splitlines(), 1):
        match = _MARK.search(text)
        if match:
            found |= {(number, code.strip()) for code in match["codes"].split(",")}
    return found


def run_watched(script: Path, tmp: Path) -> tuple[int, dict, str]:
    output = tmp / f"{script.stem}.json"
    paths = [str(ROOT), os.environ.get("PYTHONPATH", "")]
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(paths)}
    done = subprocess.run(
        [sys.executable, "-m", "contiglint.runtime", "--format", "json", "--output", str(output),
         str(script)], cwd=tmp, env=env, capture_output=True, text=True, timeout=120)
    return done.returncode, json.loads(output.read_text()), done.stderr


@pytest.fixture(scope="module")
def results(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("runtime_bugs")
    with ThreadPoolExecutor(max_workers=max(2, os.cpu_count() or 2)) as pool:
        runs = pool.map(lambda script: (script.name, run_watched(script, tmp)), SCRIPTS)
        return dict(runs)


def test_there_are_at_least_ten_bug_scripts():
    assert len(SCRIPTS) >= 10
    assert all(expected(script) for script in SCRIPTS)


@pytest.mark.parametrize("script", SCRIPTS, ids=[s.stem for s in SCRIPTS])
def test_reported_exactly_at_bug_line(script, results):
    status, report, stderr = results[script.name]
    reported = {(entry["line"], entry["code"]) for entry in report["entries"]}
    assert reported == expected(script), stderr
    assert all(Path(entry["file"]).name == script.name for entry in report["entries"])
    if "raised" in " ".join(e["title"] for e in report["entries"]) or "Error" in stderr:
        assert status != 0  # the script's own failure status is kept


def test_view_error_names_the_callers_transpose(results):
    _, report, _ = results["view_after_transpose_in_caller.py"]
    (entry,) = report["entries"]
    source = (BUGS / "view_after_transpose_in_caller.py").read_text().splitlines()
    (origin,) = entry["made_non_contiguous_at"]
    assert "out.transpose(1, 2)" in source[origin["line"] - 1]
