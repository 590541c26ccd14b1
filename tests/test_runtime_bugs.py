"""Every re-created bug in tests/runtime_bugs/ is reported by `contiglint run` exactly at its
`# bug-line` (in the script or in a sibling module it imports), with the expected codes, and
nowhere else. The hit rate over all scripts is printed and must stay >= 90%; scripts listed in
MUST_HIT (every script that passed when the rate was last raised) must all hit.

The scripts run in two batches in parallel (tests/runtime_bug_batch.py: one process per batch,
so torch is imported twice, not once per script); one script also runs as its own
`python -m contiglint run` process to cover the real entry point end to end.
"""
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
pytestmark = pytest.mark.xdist_group("runtime_bugs")  # one worker runs the batches once

BUGS = Path(__file__).parent / "runtime_bugs"
ROOT = Path(__file__).parent.parent
SCRIPTS = sorted(path for path in BUGS.glob("*.py") if not path.name.startswith("_"))
_MARK = re.compile(r"#\s*bug-line:\s*(?P<codes>[A-Z0-9, ]+)")
_SIBLING_IMPORT = re.compile(r"^(?:from|import)\s+(_\w+)", re.MULTILINE)
REQUIRED_RATE = 0.90


def markers(path: Path) -> set[tuple[str, int, str]]:
    found = set()
    for number, text in enumerate(path.read_text().splitlines(), 1):
        match = _MARK.search(text)
        if match:
            found |= {(path.name, number, code.strip()) for code in match["codes"].split(",")}
    return found


def expected(script: Path) -> set[tuple[str, int, str]]:
    """The script's own markers plus those of the sibling `_*.py` modules it imports."""
    found = markers(script)
    for module in _SIBLING_IMPORT.findall(script.read_text()):
        found |= markers(BUGS / f"{module}.py")
    return found


def reported(report: dict) -> set[tuple[str, int, str]]:
    return {(Path(e["file"]).name, e["line"], e["code"]) for e in report["entries"]}


def _environment() -> dict:
    paths = [str(ROOT), os.environ.get("PYTHONPATH", "")]
    return {**os.environ, "PYTHONPATH": os.pathsep.join(paths)}


def _run_batch(scripts: list[Path], out: Path) -> str:
    done = subprocess.run([sys.executable, str(ROOT / "tests" / "runtime_bug_batch.py"), str(out),
                           *map(str, scripts)], cwd=out, env=_environment(),
                          capture_output=True, text=True, timeout=600)
    return done.stderr


@pytest.fixture(scope="module")
def results(tmp_path_factory):
    """{script name: (exit status, report, stderr of its batch)} for every script."""
    out = tmp_path_factory.mktemp("runtime_bugs")
    batches = [SCRIPTS[0::2], SCRIPTS[1::2]]
    with ThreadPoolExecutor(max_workers=2) as pool:
        logs = list(pool.map(lambda batch: _run_batch(batch, out), batches))
    found = {}
    for index, batch in enumerate(batches):
        for script in batch:
            report_file, status_file = out / f"{script.stem}.json", out / f"{script.stem}.status"
            if not report_file.exists() or not status_file.exists():
                found[script.name] = (None, {"entries": []}, logs[index][-4000:])
                continue
            found[script.name] = (int(status_file.read_text()),
                                  json.loads(report_file.read_text()), logs[index][-4000:])
    return found


def hits(results) -> list[str]:
    return [s.name for s in SCRIPTS if reported(results[s.name][1]) == expected(s)]


# Every script that hit when the rate was last measured; a regression on any of them fails.
MUST_HIT = [s.name for s in SCRIPTS]


def test_there_are_enough_bug_scripts_each_with_a_bug_line():
    assert len(SCRIPTS) >= 40
    assert all(expected(script) for script in SCRIPTS)


def test_hit_rate(results, capsys):
    hit = hits(results)
    rate = len(hit) / len(SCRIPTS)
    misses = sorted(set(s.name for s in SCRIPTS) - set(hit))
    with capsys.disabled():
        print(f"\ncontiglint run hit rate: {len(hit)}/{len(SCRIPTS)} = {rate:.0%}"
              + (f"; missed: {', '.join(misses)}" if misses else ""))
    assert rate >= REQUIRED_RATE, misses
    assert not set(MUST_HIT) - set(hit), sorted(set(MUST_HIT) - set(hit))


@pytest.mark.parametrize("script", SCRIPTS, ids=[s.stem for s in SCRIPTS])
def test_reported_exactly_at_bug_line(script, results):
    status, report, log = results[script.name]
    assert status is not None, log
    assert reported(report) == expected(script), log
    if "raised" in " ".join(e["title"] for e in report["entries"]):
        assert status != 0  # the script's own failure status is kept


def test_view_error_names_the_callers_transpose(results):
    _, report, _ = results["view_after_transpose_in_caller.py"]
    (entry,) = report["entries"]
    source = (BUGS / "view_after_transpose_in_caller.py").read_text().splitlines()
    (origin,) = entry["made_non_contiguous_at"]
    assert "out.transpose(1, 2)" in source[origin["line"] - 1]


def test_sibling_module_is_user_code_with_origin_in_the_script(results):
    """The view fails in _attention_utils.py; the transpose that caused it is in the script."""
    _, report, _ = results["sibling_helper_view.py"]
    (entry,) = report["entries"]
    assert Path(entry["file"]).name == "_attention_utils.py"
    (origin,) = entry["made_non_contiguous_at"]
    assert Path(origin["file"]).name == "sibling_helper_view.py"


def test_python_dash_m_contiglint_run_end_to_end(tmp_path):
    """The real entry point, on a script whose hazard happens only in forked children."""
    name = "fork_sequence_parallel_allreduce.py"
    output = tmp_path / "report.json"
    subprocess.run([sys.executable, "-m", "contiglint", "run", "--format", "json", "--output",
                    str(output), str(BUGS / name)], cwd=tmp_path, env=_environment(),
                   capture_output=True, text=True, timeout=300)
    assert reported(json.loads(output.read_text())) == expected(BUGS / name)
