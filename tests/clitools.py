"""Helpers to run the real `contiglint` command in a subprocess, against this source tree."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).absolute().parent.parent

# The example from the brief: a transposed tensor passed to .view(); line 2 must be flagged.
VIEW_BUG = "x = torch.randn(2,3,4)\ny = x.transpose(1, 2).view(2, 12)\n"
BAD = "import torch\n\nx = torch.randn(2, 3, 4)\ny = x.transpose(1, 2).view(2, 12)\n"
BAD_LINE = 4
FIXED = "import torch\n\nx = torch.randn(2, 3, 4)\ny = x.transpose(1, 2).reshape(2, 12)\n"
CLEAN = "import torch\n\nx = torch.randn(2, 3, 4)\ny = x.view(2, 12)\n"


def environment() -> dict[str, str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), env.get("PYTHONPATH")]))
    env.pop("CONTIGLINT_CACHE_DIR", None)
    return env


def contiglint(*args: str, cwd: Path, stdin: str | bytes | None = None,
               binary: bool = False) -> subprocess.CompletedProcess:
    """Run `python -m contiglint ARGS` in `cwd`; text mode unless `binary`."""
    if not binary and isinstance(stdin, bytes):
        binary = True
    return subprocess.run(
        [sys.executable, "-m", "contiglint", *args], cwd=cwd, input=stdin,
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
