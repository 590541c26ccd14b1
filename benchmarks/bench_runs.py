"""How benchmarks/bench.py runs and times its commands: the pinned corpus wheels, a virtual
environment per tool, the byte-compiled copy of this checkout that contiglint runs from, and one
measured subprocess (wall and CPU seconds, peak RSS) whose exit status and output must show a
completed run."""
from __future__ import annotations

import compileall
import os
import re
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import zipfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Optional

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
PINNED = {"transformers": "5.24.0", "timm": "1.0.31", "torchvision": "0.29.1"}
TORCHFIX = "torchfix==0.7.0"
RUFF = "ruff==0.17.6"


class BenchError(Exception):
    pass


RUN_DIR = ROOT  # where every measured command runs: the installed copy's folder, once made


def installed_copy(corpus: Path) -> Path:
    """This checkout's package as `pip install` leaves it: a copy with its bytecode compiled
    (pip byte-compiles what it installs). Run from the checkout under
    PYTHONDONTWRITEBYTECODE, every run would first compile each module it imports again
    (about 0.1 s in the parent, before a worker forks), which no installed contiglint does.
    Made afresh by every bench run, from the working tree."""
    build = corpus / "contiglint-build"
    shutil.rmtree(build, ignore_errors=True)
    shutil.copytree(ROOT / "contiglint", build / "contiglint",
                    ignore=shutil.ignore_patterns("__pycache__"))
    if not compileall.compile_dir(str(build / "contiglint"), quiet=1):
        raise BenchError(f"could not byte-compile the package copy in {build}")
    return build


@dataclass
class Timing:
    label: str
    wall: list[float] = field(default_factory=list)
    cpu: list[float] = field(default_factory=list)
    rss_mb: float = 0.0
    output: str = ""
    files: int = 0  # how many files the command was given (0: the whole corpus)
    per_file: bool = True  # False: a reference row that is given no file (start-up)
    mb: float = 0.0  # their size, where a measurement needs it
    findings: int = 0  # diagnostics a tool wrote to a file, where it does

    @property
    def median(self) -> float:
        return statistics.median(self.wall)

    @property
    def cpu_median(self) -> float:
        return statistics.median(self.cpu)

    @property
    def spread(self) -> str:
        return f"{min(self.wall):.2f}-{max(self.wall):.2f}"


def measure(label: str, argv: list[str], repeats: int, timeout: float, env=None,
            ok=(0,), before=None, files: int = 0, check=None,
            timing: Optional[Timing] = None, per_file: bool = True) -> Timing:
    """Run argv `repeats` times; wall, CPU (user+sys incl. reaped children) and max RSS.

    `ok`: the exit statuses a completed run has; `check(output)` returns what is wrong with a
    run's output, or None. Anything else stops the bench (BenchError)."""
    timing = timing or Timing(label, files=files, per_file=per_file)
    for index in range(repeats):
        if before:
            before()
        out = tempfile.TemporaryFile()
        start = time.perf_counter()
        process = subprocess.Popen(argv, stdout=out, stderr=subprocess.STDOUT, env=env,
                                   cwd=RUN_DIR, start_new_session=True)
        timer = threading.Timer(timeout, os.killpg, (process.pid, signal.SIGKILL))
        timer.start()
        try:
            _, status, usage = os.wait4(process.pid, 0)
        finally:
            timer.cancel()
        elapsed = time.perf_counter() - start
        process.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0)
        timing.output = out.read().decode("utf-8", "replace")
        if process.returncode == -signal.SIGKILL and elapsed >= timeout:
            raise BenchError(f"{label}: timed out after {timeout:.0f}s")
        if process.returncode not in ok:
            raise BenchError(f"{label}: exit {process.returncode} (expected "
                             f"{' or '.join(map(str, ok))})\n{timing.output[-3000:]}")
        problem = check(timing.output) if check else None
        if problem:
            raise BenchError(f"{label}: {problem}\n{timing.output[-3000:]}")
        timing.wall.append(elapsed)
        timing.cpu.append(usage.ru_utime + usage.ru_stime)
        timing.rss_mb = max(timing.rss_mb, usage.ru_maxrss / 1024)  # Linux: KiB
        print(f"  {label} #{len(timing.wall)}: {elapsed:.1f}s wall, {timing.cpu[-1]:.1f}s CPU, "
              f"{usage.ru_maxrss / 1024:.0f} MB", flush=True)
    return timing


def pip(python: str, *args: str, timeout: float = 900) -> None:
    result = subprocess.run([python, "-m", "pip", *args], capture_output=True, text=True,
                            timeout=timeout)
    if result.returncode:
        raise BenchError(f"pip {' '.join(args)} failed:\n{result.stdout[-2000:]}"
                         f"{result.stderr[-2000:]}")


def fetch_corpus(corpus: Path, packages: list[str]) -> list[Path]:
    """Download each pinned wheel once and unpack it; an unpacked tree is reused."""
    trees = []
    for name in packages:
        tree = corpus / f"{name}-{PINNED[name]}"
        if not (tree / ".complete").exists():
            print(f"downloading {name}=={PINNED[name]} ...", flush=True)
            with tempfile.TemporaryDirectory() as download:
                pip(sys.executable, "download", "--no-deps", "--only-binary=:all:",
                    f"{name}=={PINNED[name]}", "-d", download)
                wheels = list(Path(download).glob("*.whl"))
                if len(wheels) != 1:
                    raise BenchError(f"expected one wheel for {name}, got {wheels}")
                shutil.rmtree(tree, ignore_errors=True)
                with zipfile.ZipFile(wheels[0]) as wheel:
                    wheel.extractall(tree)
            (tree / ".complete").write_text(wheels[0].name + "\n")
        trees.append(tree)
    # An empty [tool.contiglint] table: the corpus is linted with the defaults, whatever
    # configuration the checkout around it has.
    (corpus / "pyproject.toml").write_text("[tool.contiglint]\n")
    return trees


def runtime_requirements() -> list[str]:
    """contiglint's runtime dependencies (pyproject.toml's [project] dependencies that apply
    to this Python), pinned to the versions installed here."""
    import importlib.metadata
    import tomllib
    from packaging.requirements import Requirement

    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    pinned = []
    for text in project["dependencies"]:
        requirement = Requirement(text)
        if requirement.marker is None or requirement.marker.evaluate():
            pinned.append(f"{requirement.name}=="
                          f"{importlib.metadata.version(requirement.name)}")
    return pinned


def tool_python(corpus: Path, name: str, requirement: str) -> str:
    """A virtual environment of its own for a tool (reused once complete); its python."""
    venv = corpus / f"{name}-venv"
    python = venv / "bin" / "python"
    stamp = venv / ".complete"
    if not stamp.exists() or stamp.read_text().strip() != requirement:
        print(f"installing {requirement} into {venv} ...", flush=True)
        shutil.rmtree(venv, ignore_errors=True)
        subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, timeout=300)
        pip(str(python), "install", "-q", *requirement.split())
        if name == "torchfix":
            check = subprocess.run([str(python), "-c", "import torch"], capture_output=True)
            if check.returncode == 0:
                raise BenchError("torchfix pulled torch into its venv; it should not need it")
        stamp.write_text(requirement + "\n")
    return str(python)


PARSE_SCRIPT = """
import sys
files = open(sys.argv[2], encoding="utf-8").read().splitlines()
failed = 0
if sys.argv[1] == "libcst":
    import libcst
    parse = libcst.parse_module
else:
    import ast, warnings
    warnings.simplefilter("ignore")
    parse = ast.parse
for path in files:
    with open(path, "rb") as handle:
        data = handle.read()
    try:
        parse(data.decode("utf-8-sig"))
    except Exception:
        failed += 1
print(f"parsed {len(files) - failed}, failed {failed}")
"""


def parsed_all(count: int):
    """The check of a parse script's output: it read every one of the `count` files."""
    def check(output: str) -> Optional[str]:
        match = re.search(r"parsed (\d+), failed (\d+)", output)
        if not match or int(match[1]) + int(match[2]) != count:
            return f"expected a summary covering {count} files"
        return None
    return check


def no_traceback(output: str) -> Optional[str]:
    return "the tool crashed (traceback in its output)" if "Traceback (most recent call" \
        in output else None


def line_count(path: Path) -> int:
    count = 0
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            count += block.count(b"\n")
    return count
