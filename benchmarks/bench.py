"""How fast is contiglint on real model code, next to ruff, TorchFix, flake8 and a bare parse?

    python benchmarks/bench.py [--repeats 3] [--pairs 3] [--torchfix-repeats 1] [--jobs N]
                               [--packages transformers,timm,torchvision] [--skip-torchfix]
                               [--ruff-only] [--rules all|default]

Corpus: fixed wheels from PyPI (`pip download --no-deps`), unpacked into benchmarks/corpus/
(git-ignored, never committed) and reused when already there. Every tool gets exactly the
`*.py` files contiglint discovers there, so files/s are comparable.

Measured, each as a fresh subprocess, median of `--repeats` runs (TorchFix: `--torchfix-repeats`,
default 1 because one run takes minutes), with min and max:
  * ruff (`ruff check --select ALL --no-cache`, every rule, its own threads, diagnostics written
    to a file in its default format) and contiglint cold -jN, measured in `--pairs`
    alternating pairs (ruff first in odd pairs, contiglint first in even ones), so that load from
    elsewhere on the machine falls on both; the ratio is taken per pair. ruff runs from its own
    virtual environment (benchmarks/corpus/ruff-venv, pinned), with `--isolated` so that no
    configuration file in the wheels or around the corpus changes its rule set. ruff with
    `--output-format concise` (one line per diagnostic) is timed too, for reference: writing
    its default format's source snippets is a large part of ruff's time on this corpus;
  * contiglint cold: all rules (opt-in ones too), `--no-cache`, with -j1 and -jN (N = all cores);
  * linearity: contiglint cold -jN on an interleaved quarter and half of the files and on all of
    them, in rounds of the three in turn; the CPU seconds per MB of the second half (full - half) over those of the second
    quarter (half - quarter) is 1.0 when the cost is linear in corpus size (start-up cancels);
  * contiglint warm: the same -jN run again with a cache that a first run has filled (3x
    `--repeats` runs, as for the start-up rows: each takes well under a second);
  * TorchFix's CLI with its default rules and jobs (it runs in its own virtual environment,
    benchmarks/corpus/torchfix-venv, so that its libcst pin and its TOR flake8 plugin never
    touch this environment; it needs neither torch nor CUDA);
  * `flake8 --select CTG` (contiglint's plugin, default rules, flake8's default jobs);
  * a bare single-process `libcst.parse_module` of every file (TorchFix's libcst), and
    `ast.parse` for reference.
`--ruff-only` runs the ruff / contiglint pairs alone (for comparing two commits: run it from
each checkout with the same `--corpus`).
contiglint runs as installed: from a byte-compiled copy of this checkout's package
(benchmarks/corpus/contiglint-build, made afresh by each run; `pip install` byte-compiles too),
and every measured command runs in that folder. Like ruff, it runs from a virtual environment
of its own (benchmarks/corpus/contiglint-venv) that holds its runtime dependencies only, at the
versions installed here: an interpreter started in this environment would also run every
`.pth` file of its site-packages (this checkout's editable install among them), which is the
environment's cost, not the linter's. Two reference rows show what every contiglint run pays
before it looks at a file: that interpreter's start-up, and importing the CLI.
Wall seconds come from `time.perf_counter` around the subprocess; CPU seconds and peak memory
from `os.wait4`, whose rusage on Linux covers the process and every descendant it reaped (the
pool workers), with `ru_maxrss` the largest *single* process among them: that is the
"peak memory per process" target. The machine may be shared, so CPU seconds are printed too:
they are far less sensitive to other load than wall seconds.

Targets get PASS/FAIL, judged on wall time (CPU alongside; linearity on CPU). Issue 16:
cold -jN <= ruff (median of the per-pair ratios); linear in corpus size (marginal cost ratio
<= 1.2); warm <= 3% of cold; peak RSS <= 100 MB per process. Issue 8: cold -jN >= 15x faster
than TorchFix; cold <= 0.7x the bare LibCST parse. No test asserts timings; this script is the
measurement.

A run that fails is never a number: every command must exit with the status it is expected to
(0: all run with --exit-zero or print a summary) and its output must look like a completed run
(e.g. flake8 without a traceback, ruff's output file written, the parse scripts covering every
file); otherwise the bench stops with exit status 2 and shows the tool's output.
"""
from __future__ import annotations

import argparse
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
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Optional

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
PINNED = {"transformers": "5.24.0", "timm": "1.0.31", "torchvision": "0.29.1"}
TORCHFIX = "torchfix==0.7.0"
CANARY = "flake8-canary.py"  # a file of one default finding, to show the plugin ran
RUFF = "ruff==0.17.6"
sys.path.insert(0, str(ROOT))  # this checkout's contiglint, installed or not


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


def corpus_facts(trees: list[Path], select: list[str]) -> tuple[list[str], int]:
    """The files contiglint lints, and how many of them the prefilter never parses."""
    from contiglint.prefilter import may_have_findings
    from contiglint.discovery import discover
    from contiglint.settings import Settings
    files, errors = discover([str(tree) for tree in trees])
    if errors or not files:
        raise BenchError(f"discovery found {len(files)} files, errors: {errors[:3]}")
    settings = Settings(select=tuple(select))
    skipped = 0
    for path in files:
        with open(path, encoding="utf-8-sig", errors="replace") as handle:
            skipped += not may_have_findings(handle.read(), settings)
    return files, skipped


def all_codes() -> list[str]:
    from contiglint.rules import registry
    return ["CTG"] + [entry.code for entry in registry.entries() if entry.opt_in]


def per_code(statistics_output: str) -> Counter:
    return Counter({code: int(count) for count, code in
                    re.findall(r"^\s*(\d+)\s+(CTG\d+)\b", statistics_output, re.M)})


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeats", type=int, default=3, help="runs per measurement")
    parser.add_argument("--pairs", type=int, default=3,
                        help="alternating ruff / contiglint cold -jN pairs (at least 3 for a "
                             "median with min and max)")
    parser.add_argument("--torchfix-repeats", type=int, default=1)
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1, help="N for -jN")
    parser.add_argument("--packages", default=",".join(PINNED),
                        help=f"subset of {','.join(PINNED)}")
    parser.add_argument("--corpus", type=Path, default=HERE / "corpus")
    parser.add_argument("--timeout", type=float, default=3600, help="seconds per run")
    parser.add_argument("--skip-torchfix", action="store_true")
    parser.add_argument("--skip-flake8", action="store_true")
    parser.add_argument("--skip-linearity", action="store_true")
    parser.add_argument("--ruff-only", action="store_true",
                        help="measure only the ruff / contiglint cold -jN pairs (the issue 16 "
                             "target), e.g. to compare two commits in one run each")
    parser.add_argument("--rules", choices=("all", "default"), default="all",
                        help="contiglint's rules: every rule, opt-in and preview ones too "
                             "(default), or only those that run by default (the issue 16 "
                             "target's setting)")
    parser.add_argument("--torchfix-packages", metavar="NAMES",
                        help="run TorchFix on this subset only (it is ~40x slower than "
                             "contiglint); the speedup then compares both on that subset")
    args = parser.parse_args()
    if args.repeats < 1 or args.pairs < 1:
        parser.error("--repeats and --pairs must be at least 1")
    try:
        return bench(args)
    except (BenchError, subprocess.SubprocessError, OSError) as error:
        print(f"bench: {error}", file=sys.stderr)
        return 2


def bench(args: argparse.Namespace) -> int:
    packages = [name.strip() for name in args.packages.split(",") if name.strip()]
    unknown = set(packages) - set(PINNED)
    if unknown:
        raise BenchError(f"unknown packages {sorted(unknown)}; pinned: {sorted(PINNED)}")
    corpus = args.corpus.resolve()
    corpus.mkdir(parents=True, exist_ok=True)
    trees = fetch_corpus(corpus, packages)
    tf_packages = [name.strip() for name in (args.torchfix_packages or args.packages)
                   .split(",") if name.strip()]
    if not set(tf_packages) <= set(packages):
        raise BenchError("--torchfix-packages must be a subset of --packages")
    select = all_codes() if args.rules == "all" else ["CTG"]
    files, skipped = corpus_facts(trees, select)
    listing = corpus / "files.txt"
    listing.write_text("\n".join(files) + "\n")
    size_mb = sum(os.path.getsize(path) for path in files) / 1e6
    print(f"corpus: {', '.join(t.name for t in trees)}: {len(files)} files, {size_mb:.1f} MB; "
          f"prefilter skips {skipped}; rules {','.join(select)}; -jN = -j{args.jobs}",
          flush=True)

    global RUN_DIR
    RUN_DIR = installed_copy(corpus)  # `-m contiglint` imports it from the folder it runs in
    env = dict(os.environ, PYTHONPATH=str(RUN_DIR), PYTHONDONTWRITEBYTECODE="1")
    python = tool_python(corpus, "contiglint", " ".join(runtime_requirements()))
    lint = [python, "-m", "contiglint", "--config", str(corpus / "pyproject.toml"),
            "--select", ",".join(select), "-q", "--statistics", "--exit-zero"]
    cache = corpus / ".contiglint_cache"
    clear_cache = lambda: shutil.rmtree(cache, ignore_errors=True)  # noqa: E731
    results: dict[str, Timing] = {}
    run = lambda key, label, argv, n=args.repeats, **kw: results.__setitem__(  # noqa: E731
        key, measure(label, argv, n, args.timeout, **kw))
    every = parsed_all(len(files))
    if args.ruff_only:
        ruff_pairs(args, corpus, files, lint + ["--no-cache", f"-j{args.jobs}",
                                                *map(str, trees)], env, results, concise=False)
        report_pairs(results, args.jobs)
        return 0

    quick = 3 * args.repeats  # runs of well under a second: more of them for their medians
    run("startup", "python start-up (reference)", [python, "-c", "pass"], n=quick, env=env,
        per_file=False)
    run("imports", "import contiglint.cli (reference)", [python, "-c", "import contiglint.cli"],
        n=quick, env=env, per_file=False)
    run("ast", "ast.parse, 1 process",
        [sys.executable, "-c", PARSE_SCRIPT, "ast", str(listing)], check=every)
    tf_python = None if args.skip_torchfix else tool_python(corpus, "torchfix", TORCHFIX)
    libcst_python = tf_python or sys.executable
    run("libcst", "libcst.parse_module, 1 process",
        [libcst_python, "-c", PARSE_SCRIPT, "libcst", str(listing)], check=every)
    run("cold1", "contiglint cold -j1", lint + ["--no-cache", "-j1", *map(str, trees)], env=env)
    ruff_pairs(args, corpus, files, lint + ["--no-cache", f"-j{args.jobs}", *map(str, trees)],
               env, results)
    warm_env = dict(env, CONTIGLINT_CACHE_DIR=str(cache))
    run("fill", f"contiglint cache fill -j{args.jobs}",
        lint + [f"-j{args.jobs}", *map(str, trees)], env=warm_env, before=clear_cache)
    run("warm", f"contiglint warm -j{args.jobs}", lint + [f"-j{args.jobs}", *map(str, trees)],
        n=quick, env=warm_env)
    if not args.skip_linearity:
        # rounds of a quarter, a half and all of the files in turn, so that the three are
        # measured under the same load (a difference of medians taken minutes apart is
        # mostly the machine's)
        for share in (4, 2, 1):
            subset = files[::share]
            label = f"contiglint cold -j{args.jobs}, 1/{share} of files" if share > 1 else \
                f"contiglint cold -j{args.jobs}, all files"
            results[f"part{share}"] = Timing(label, files=len(subset))
            results[f"part{share}"].mb = sum(os.path.getsize(p) for p in subset) / 1e6
        for _ in range(args.repeats):
            for share in (4, 2, 1):
                measure(results[f"part{share}"].label, lint + [
                    "--no-cache", f"-j{args.jobs}", *files[::share]], 1, args.timeout,
                    env=env, timing=results[f"part{share}"])
    if not args.skip_flake8:
        run_flake8(corpus, trees, env, run)
    if tf_python:
        subset = [t for t in trees if t.name.split("-")[0] in tf_packages]
        count = sum(1 for path in files if any(path.startswith(f"{t}{os.sep}") for t in subset))
        run("torchfix", f"torchfix ({'+'.join(tf_packages)})",
            [str(Path(tf_python).parent / "torchfix"), *map(str, subset)],
            n=args.torchfix_repeats, files=count, ok=(0, 1), check=no_traceback)
        if subset != trees:  # the speedup compares the two tools on the same files
            run("coldN_tf", f"contiglint cold -j{args.jobs} ({'+'.join(tf_packages)})",
                lint + [*map(str, subset), "--no-cache", f"-j{args.jobs}"],
                env=env, files=count)
    report(results, len(files), skipped, args.jobs)
    return 0


def ruff_pairs(args: argparse.Namespace, corpus: Path, files: list[str], cold: list[str],
               env: dict, results: dict[str, Timing], concise: bool = True) -> None:
    """ruff and contiglint cold -jN in alternating pairs; per-pair ratios in results."""
    ruff = str(Path(tool_python(corpus, "ruff", RUFF)).parent / "ruff")
    output = corpus / "ruff-output.txt"
    argv = [ruff, "check", "--isolated", "--select", "ALL", "--no-cache", "--exit-zero",
            "--quiet", "--output-file", str(output), *files]

    def written(_: str) -> Optional[str]:
        if not output.exists() or output.stat().st_size == 0:
            return f"ruff wrote no diagnostics to {output}"
        return None

    ours = results["coldN"] = Timing(f"contiglint cold -j{args.jobs}")
    theirs = results["ruff"] = Timing("ruff --select ALL --no-cache")
    for index in range(args.pairs):
        order = [(theirs, argv, None, written, lambda: output.unlink(missing_ok=True)),
                 (ours, cold, env, None, None)]
        if index % 2:
            order.reverse()
        for timing, command, environment, check, before in order:
            measure(timing.label, command, 1, args.timeout, env=environment, check=check,
                    before=before, timing=timing)
    if concise:  # for reference: one line per diagnostic instead of ruff's source snippets
        short = argv[:-len(files) - 2] + ["--output-format", "concise", *argv[-len(files) - 2:]]
        results["ruff_concise"] = measure("ruff, concise output (reference)", short,
                                          args.repeats, args.timeout, check=written,
                                          before=lambda: output.unlink(missing_ok=True))
        theirs.findings = line_count(output)  # one line per diagnostic
    results["ruff_ratio"] = [a / b for a, b in zip(ours.wall, theirs.wall)]
    results["ruff_cpu_ratio"] = [a / b for a, b in zip(ours.cpu, theirs.cpu)]


def run_flake8(corpus: Path, trees: list[Path], env: dict, run) -> None:
    """contiglint's flake8 plugin as installed (entry point), or as a local plugin when this
    environment has not installed contiglint."""
    from importlib.metadata import entry_points
    installed = any(ep.name == "CTG" and ep.value.startswith("contiglint.")
                    for ep in entry_points(group="flake8.extension"))
    flake8_cfg = corpus / "flake8.cfg"
    flake8_cfg.write_text("[flake8]\n" + ("" if installed else (
        "[flake8:local-plugins]\nextension =\n"
        "    CTG = contiglint.flake8_plugin:ContiglintChecker\n"
        f"paths = {RUN_DIR}\n")))

    # The corpus may hold no finding of the default rules (it holds none today), so the
    # plugin's run is shown by a file with one: flake8 must report it, or the plugin did not
    # run. It is left out of the count of the corpus's findings.
    canary = corpus / CANARY
    canary.write_text("import torch.distributed as dist\n\n\ndef sync(x):\n"
                      "    dist.all_reduce(x.t())\n")

    def ran_contiglint(output: str) -> Optional[str]:
        return no_traceback(output) or (
            None if re.search(rf"{re.escape(CANARY)}:5:\d+: CTG107", output) else
            f"flake8 did not report {CANARY}'s CTG107, so the plugin did not run")

    run("flake8", "flake8 --select CTG",
        [sys.executable, "-m", "flake8", "--config", str(flake8_cfg), "--select", "CTG",
         "--exit-zero", *map(str, trees), str(canary)], env=env, check=ran_contiglint)


def report_pairs(results: dict, jobs: int) -> None:
    """The paired rows alone (--ruff-only)."""
    print(f"\n{'measurement':38} {'wall s':>8} {'min-max':>12} {'CPU s':>8} {'CPU min-max':>12} "
          f"{'max RSS':>8}")
    for key in ("ruff", "coldN"):
        timing = results[key]
        print(f"{timing.label:38} {timing.median:8.2f} {timing.spread:>12} "
              f"{timing.cpu_median:8.2f} {min(timing.cpu):5.2f}-{max(timing.cpu):<6.2f} "
              f"{timing.rss_mb:6.0f}MB")
    counts = per_code(results["coldN"].output)
    print("findings per code:", ", ".join(f"{c} {n}" for c, n in sorted(counts.items()))
          or "none")
    ratios, cpu_ratios = results["ruff_ratio"], results["ruff_cpu_ratio"]
    print("contiglint cold -j%d / ruff, per pair: wall %s; CPU %s" % (
        jobs, " ".join(f"{r:.2f}" for r in ratios), " ".join(f"{r:.2f}" for r in cpu_ratios)))
    median = statistics.median(ratios)
    print(f"cold -j{jobs} <= ruff --select ALL (median of {len(ratios)} pairs): wall "
          f"{median:.2f}x ({min(ratios):.2f}-{max(ratios):.2f}), CPU "
          f"{statistics.median(cpu_ratios):.2f}x ({min(cpu_ratios):.2f}-{max(cpu_ratios):.2f})"
          f"  {'PASS' if median <= 1.0 else 'FAIL'}")


def report(results: dict, files: int, skipped: int, jobs: int) -> None:
    parse = results["libcst"]
    print(f"\n{'measurement':38} {'files':>5} {'wall s':>8} {'min-max':>12} {'CPU s':>8} "
          f"{'files/s':>8} {'÷libcst':>8} {'max RSS':>8}  runs")
    timings = [t for t in results.values() if isinstance(t, Timing)]
    for timing in timings:
        count = timing.files or files
        ratio = f"{timing.median / parse.median:8.2f}" if count == files else f"{'-':>8}"
        rate = f"{count / timing.median:8.1f}"
        if not timing.per_file:
            count, rate, ratio = "-", f"{'-':>8}", f"{'-':>8}"
        print(f"{timing.label:38} {count:>5} {timing.median:8.2f} {timing.spread:>12} "
              f"{timing.cpu_median:8.2f} {rate} {ratio} "
              f"{timing.rss_mb:6.0f}MB  {len(timing.wall)}")
    print(f"\nfiles: {files}; prefilter skipped: {skipped}")
    print("libcst / ast outputs:", results["libcst"].output.strip(), "|",
          results["ast"].output.strip())
    counts = per_code(results["coldN"].output)
    print("findings per code:", ", ".join(f"{c} {n}" for c, n in sorted(counts.items()))
          or "none")
    print(f"ruff diagnostics: {results['ruff'].findings}")
    ratios, cpu_ratios = results["ruff_ratio"], results["ruff_cpu_ratio"]
    print("contiglint cold -j%d / ruff, per pair: wall %s; CPU %s" % (
        jobs, " ".join(f"{r:.2f}" for r in ratios), " ".join(f"{r:.2f}" for r in cpu_ratios)))
    if "flake8" in results:
        flake8_total = len([line for line in re.findall(r"^.*:\d+:\d+: CTG\d+",
                                                        results["flake8"].output, re.M)
                            if CANARY not in line])
        print(f"flake8 CTG findings: {flake8_total} (default rules, the canary not counted; "
              f"the CLI's total: {sum(counts.values())})")
    if "torchfix" in results:
        print("torchfix says:", " / ".join(results["torchfix"].output.strip().splitlines()[-2:]))

    cold, cold1, warm = results["coldN"], results["cold1"], results["warm"]
    rss = max(t.rss_mb for k, t in results.items()
              if k.startswith(("cold", "fill", "warm", "part")))
    median, low, high = (statistics.median(ratios), min(ratios), max(ratios))
    targets = [(f"cold -j{jobs} <= ruff --select ALL (median of {len(ratios)} pairs; "
                f"{low:.2f}-{high:.2f})", median, statistics.median(cpu_ratios), 1.0, "x")]
    if "part2" in results:
        quarter, half, whole = results["part4"], results["part2"], results["part1"]
        first = (half.cpu_median - quarter.cpu_median) / (half.mb - quarter.mb)
        second = (whole.cpu_median - half.cpu_median) / (whole.mb - half.mb)
        wall_first = (half.median - quarter.median) / (half.mb - quarter.mb)
        wall_second = (whole.median - half.median) / (whole.mb - half.mb)
        print(f"marginal cost per MB: 1/4 -> 1/2 of the files {first:.3f} CPU s "
              f"({wall_first:.3f} wall), 1/2 -> all {second:.3f} CPU s ({wall_second:.3f} wall)")
        # judged on CPU: a difference of two wall times on a shared machine is mostly noise
        targets.append(("linear: CPU per MB, second half / second quarter <= 1.2",
                        second / first, second / first, 1.2, "x"))
    targets += [(f"warm -j{jobs} <= 3% of cold -j{jobs}", 100 * warm.median / cold.median,
                 100 * warm.cpu_median / cold.cpu_median, 3.0, "%"),
                ("peak RSS per process (max over contiglint runs) <= 100 MB", rss, rss,
                 100.0, "MB"),
                (f"cold -j{jobs} <= 0.7x bare LibCST parse", cold.median / parse.median,
                 cold.cpu_median / parse.cpu_median, 0.7, "x"),
                ("cold -j1 <= 0.7x bare LibCST parse", cold1.median / parse.median,
                 cold1.cpu_median / parse.cpu_median, 0.7, "x")]
    print(f"\n{'target':72} {'wall':>9} {'CPU':>9}")
    if "torchfix" in results:
        ours, theirs = results.get("coldN_tf", cold), results["torchfix"]
        speedup, cpu_speedup = theirs.median / ours.median, theirs.cpu_median / ours.cpu_median
        print(f"{'cold -j%d >= 15x faster than TorchFix' % jobs:72} {speedup:7.1f}x  "
              f"{cpu_speedup:7.1f}x   {'PASS' if speedup >= 15 else 'FAIL'}")
    else:
        print("TorchFix skipped: the 15x target is not measured")
    for name, value, cpu_value, limit, unit in targets:
        print(f"{name:72} {value:7.2f}{unit:2} {cpu_value:7.2f}{unit:2}  "
              f"{'PASS' if value <= limit else 'FAIL'}")


if __name__ == "__main__":
    sys.exit(main())
