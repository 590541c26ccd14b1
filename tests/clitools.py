"""Helpers to run the real `contiglint` command in a subprocess, against this source tree."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Sequence

from contiglint.config import Config
from contiglint.report import not_run_line
from contiglint.rules import statuses
from contiglint.settings import Settings

ROOT = Path(__file__).absolute().parent.parent

# The example from the brief: a transposed tensor passed to .view(); line 2 must be flagged.
VIEW_BUG = "x = torch.randn(2,3,4)\ny = x.transpose(1, 2).view(2, 12)\n"
BAD = "import torch\n\nx = torch.randn(2, 3, 4)\ny = x.transpose(1, 2).view(2, 12)\n"
BAD_LINE = 4
FIXED = "import torch\n\nx = torch.randn(2, 3, 4)\ny = x.transpose(1, 2).reshape(2, 12)\n"
CLEAN = "import torch\n\nx = torch.randn(2, 3, 4)\ny = x.view(2, 12)\n"
# A finding of a preview rule (CTG108: an in-place write into an expanded tensor raises), for
# the tests of what the preview switch runs
PREVIEW_CODE = "CTG103"
PREVIEW_BAD = "import torch\nfrom torch import nn\n\nw = nn.Parameter(torch.zeros(4, 3).t())\n"
PREVIEW_LINE = 4


def environment() -> dict[str, str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), env.get("PYTHONPATH")]))
    env.pop("CONTIGLINT_CACHE_DIR", None)
    env.pop("PYTEST_ADDOPTS", None)  # the suite's own options (CI's --run-slow) are not the
    # options of a pytest the test starts in a directory without this suite's conftest
    return env


# The contract and raw-memory tests trigger CTG114 and CTG106, and the preview example CTG103:
# preview rules, opt-in because their measured precision on real code is below the policy of
# contiglint/rules/precision.py (the examples above trigger CTG101, which runs by default, and
# the in-place tests CTG108, which does too). The CLI tests exercise the machinery around a
# finding (formats, fixes, cache, exit codes, projects), so a lint run selects them as a
# user's `extend-select` would, unless the test passes its own selection or `defaults=True`
# (the tests of what runs by default).
EXERCISED = ("CTG101", "CTG103", "CTG106", "CTG108", "CTG114")
EXAMPLE_SELECT = ("--extend-select", ",".join(EXERCISED))
SELECTION_FLAGS = ("--select", "--extend-select", "--ignore")
SUBCOMMANDS = ("rules", "rule", "verify", "run")


EXAMPLE_CONFIG = Config(settings=Settings(extend_select=EXERCISED))  # the same, in process
# what a run with that selection adds after its summary: the preview rules it did not run
EXAMPLE_NOT_RUN = not_run_line(EXAMPLE_CONFIG.settings.not_run(statuses()))


def with_example_rule(args: Sequence[str]) -> list[str]:
    """`args` plus the selection of the examples' rule, for a lint run that chooses none."""
    args = list(args)
    if (args and args[0] in SUBCOMMANDS) or any(
            a.split("=")[0] in SELECTION_FLAGS for a in args):
        return args
    if args and args[0] == "check":
        return ["check", *EXAMPLE_SELECT, *args[1:]]
    return [*EXAMPLE_SELECT, *args]


def contiglint(*args: str, cwd: Path, stdin: str | bytes | None = None,
               binary: bool = False, defaults: bool = False) -> subprocess.CompletedProcess:
    """Run `python -m contiglint ARGS` in `cwd`; text mode unless `binary`. The examples' rule
    is selected (see EXAMPLE_SELECT) unless `defaults`."""
    if not binary and isinstance(stdin, bytes):
        binary = True
    argv = list(args) if defaults else with_example_rule(args)
    return subprocess.run(
        [sys.executable, "-m", "contiglint", *argv], cwd=cwd, input=stdin,
        capture_output=True, env=environment(), timeout=120,
        **({} if binary else {"text": True, "encoding": "utf-8"}))


def findings_json(*args: str, cwd: Path, stdin: str | None = None) -> list[dict]:
    process = contiglint("--format", "json", "--no-cache", *args, cwd=cwd, stdin=stdin)
    assert process.returncode in (0, 1, 2), process.stderr
    return json.loads(process.stdout)


def codes_by_line(findings: list[dict]) -> set[tuple[str, int, str]]:
    return {(Path(f["path"]).name, f["line"], f["code"]) for f in findings}


def write(directory: Path, name: str, text: str) -> Path:
    path = directory / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path
