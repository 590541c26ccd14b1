"""How fast is contiglint on real model code, next to TorchFix, flake8 and a bare parse?

    python benchmarks/bench.py [--repeats 3] [--torchfix-repeats 1] [--jobs N]
                               [--packages transformers,timm,torchvision] [--skip-torchfix]

Corpus: fixed wheels from PyPI (`pip download --no-deps`), unpacked into benchmarks/corpus/
(git-ignored, never committed) and reused when already there. Every tool gets exactly the
`*.py` files contiglint discovers there, so files/s are comparable.

Measured, each as a fresh subprocess, median of `--repeats` runs (TorchFix: `--torchfix-repeats`,
default 1 because one run takes minutes):
  * contiglint cold: all rules (opt-in ones too), `--no-cache`, with -j1 and -jN (N = all cores);
  * contiglint warm: the same -jN run again with a cache that a first run has filled;
  * TorchFix's CLI with its default rules and jobs (it runs in its own virtual environment,
    benchmarks/corpus/torchfix-venv, so that its libcst pin and its TOR flake8 plugin never
    touch this environment; it needs neither torch nor CUDA);
  * `flake8 --select CTG` (contiglint's plugin, default rules, flake8's default jobs);
  * a bare single-process `libcst.parse_module` of every file (TorchFix's libcst), and
    `ast.parse` for reference.
Wall seconds come from `time.perf_counter` around the subprocess; CPU seconds and peak memory
from `os.wait4`, whose rusage on Linux covers the process and every descendant it reaped (the
pool workers), with `ru_maxrss` the largest *single* process among them: that is the
"peak memory per process" target. The machine may be shared, so CPU seconds are printed too:
they are far less sensitive to other load than wall seconds.

Targets (issue 8) get PASS/FAIL: cold -jN >= 15x faster than TorchFix; cold <= 0.7x the bare
LibCST parse; warm <= 5% of cold; peak RSS < 300 MB, judged on wall time (CPU alongside).
No test asserts timings; this script is the measurement. Exit status: 0 ran (whatever the
targets say), 2 the setup or a tool failed.
"""
from __future__ import annotations

import argparse
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

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
PINNED = {"transformers": "5.24.0", "timm": "1.0.31", "torchvision": "0.29.1"}
TORCHFIX = "torchfix==0.7.0"
sys.path.insert(0, str(ROOT))  # this checkout's contiglint, installed or not


class BenchError(Exception):
    pass


@dataclass
class Timing:
    label: str
    wall: list[float] = field(default_factory=list)
    cpu: list[float] = field(default_factory=list)
    rss_mb: float = 0.0
    output: str = ""
    files: int = 0  # how many files the command was given (0: the whole corpus)

    @property
    def median(self) -> float:
        return statistics.median(self.wall)

    @property
    def cpu_median(self) -> float:
        return statistics.median(self.cpu)


def measure(label: str, argv: list[str], repeats: int, timeout: float, env=None,
            ok=(0, 1), before=None, files: int = 0) -> Timing:
    """Run argv `repeats` times; wall, CPU (user+sys incl. reaped children) and max RSS."""
    timing = Timing(label, files=files)
    for index in range(repeats):
        if before:
            before()
        out = tempfile.TemporaryFile()
        start = time.perf_counter()
        process = subprocess.Popen(argv, stdout=out, stderr=subprocess.STDOUT, env=env,
                                   cwd=ROOT, start_new_session=True)
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
            raise BenchError(f"{label}: exit {process.returncode}\n{timing.output[-3000:]}")
        timing.wall.append(elapsed)
        timing.cpu.append(usage.ru_utime + usage.ru_stime)
        timing.rss_mb = max(timing.rss_mb, usage.ru_maxrss / 1024)  # Linux: KiB
        print(f"  {label} #{index + 1}: {elapsed:.1f}s wall, {timing.cpu[-1]:.1f}s CPU, "
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


def torchfix_python(corpus: Path) -> str:
    venv = corpus / "torchfix-venv"
    python = venv / "bin" / "python"
    if not (venv / ".complete").exists():
        print(f"installing {TORCHFIX} into {venv} ...", flush=True)
        shutil.rmtree(venv, ignore_errors=True)
        subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, timeout=300)
        pip(str(python), "install", "-q", TORCHFIX)
        check = subprocess.run([str(python), "-c", "import torch"], capture_output=True)
        if check.returncode == 0:
            raise BenchError("torchfix pulled torch into its venv; it should not need it")
        (venv / ".complete").write_text(TORCHFIX + "\n")
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


def corpus_facts(trees: list[Path], select: list[str]) -> tuple[list[str], int]:
    """The files contiglint lints, and how many of them the prefilter never parses."""
    from contiglint.engine import may_have_findings
    from contiglint.files import discover
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
    from contiglint.rules import all_rules
    return ["CTG"] + [rule.code for rule in all_rules() if rule.opt_in]


def per_code(statistics_output: str) -> Counter:
    return Counter({code: int(count) for count, code in
                    re.findall(r"^\s*(\d+)\s+(CTG\d+)\b", statistics_output, re.M)})


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeats", type=int, default=3, help="runs per measurement")
    parser.add_argument("--torchfix-repeats", type=int, default=1)
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1, help="N for -jN")
    parser.add_argument("--packages", default=",".join(PINNED),
                        help=f"subset of {','.join(PINNED)}")
    parser.add_argument("--corpus", type=Path, default=HERE / "corpus")
    parser.add_argument("--timeout", type=float, default=3600, help="seconds per run")
    parser.add_argument("--skip-torchfix", action="store_true")
    parser.add_argument("--skip-flake8", action="store_true")
    parser.add_argument("--torchfix-packages", metavar="NAMES",
                        help="run TorchFix on this subset only (it is ~40x slower than "
                             "contiglint); the speedup then compares both on that subset")
    args = parser.parse_args()
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
    select = all_codes()
    files, skipped = corpus_facts(trees, select)
    listing = corpus / "files.txt"
    listing.write_text("\n".join(files) + "\n")
    size_mb = sum(os.path.getsize(path) for path in files) / 1e6
    print(f"corpus: {', '.join(t.name for t in trees)}: {len(files)} files, {size_mb:.1f} MB; "
          f"prefilter skips {skipped}; rules {','.join(select)}; -jN = -j{args.jobs}",
          flush=True)

    env = dict(os.environ, PYTHONPATH=str(ROOT), PYTHONDONTWRITEBYTECODE="1")
    lint = [sys.executable, "-m", "contiglint", "--config", str(corpus / "pyproject.toml"),
            "--select", ",".join(select), "-q", "--statistics", "--exit-zero",
            *map(str, trees)]
    cache = corpus / ".contiglint_cache"
    clear_cache = lambda: shutil.rmtree(cache, ignore_errors=True)  # noqa: E731
    results: dict[str, Timing] = {}
    run = lambda key, label, argv, n=args.repeats, **kw: results.__setitem__(  # noqa: E731
        key, measure(label, argv, n, args.timeout, **kw))

    run("ast", "ast.parse, 1 process",
        [sys.executable, "-c", PARSE_SCRIPT, "ast", str(listing)])
    tf_python = None if args.skip_torchfix else torchfix_python(corpus)
    libcst_python = tf_python or sys.executable
    run("libcst", "libcst.parse_module, 1 process",
        [libcst_python, "-c", PARSE_SCRIPT, "libcst", str(listing)])
    run("cold1", "contiglint cold -j1", lint + ["--no-cache", "-j1"], env=env)
    run("coldN", f"contiglint cold -j{args.jobs}", lint + ["--no-cache", f"-j{args.jobs}"],
        env=env)
    warm_env = dict(env, CONTIGLINT_CACHE_DIR=str(cache))
    run("fill", f"contiglint cache fill -j{args.jobs}", lint + [f"-j{args.jobs}"],
        env=warm_env, before=clear_cache)
    run("warm", f"contiglint warm -j{args.jobs}", lint + [f"-j{args.jobs}"], env=warm_env)
    if not args.skip_flake8:
        run_flake8(corpus, trees, env, run)
    if tf_python:
        subset = [t for t in trees if t.name.split("-")[0] in tf_packages]
        count = sum(1 for path in files if any(path.startswith(f"{t}{os.sep}") for t in subset))
        run("torchfix", f"torchfix ({'+'.join(tf_packages)})",
            [str(Path(tf_python).parent / "torchfix"), *map(str, subset)],
            n=args.torchfix_repeats, files=count)
        if subset != trees:  # the speedup compares the two tools on the same files
            run("coldN_tf", f"contiglint cold -j{args.jobs} ({'+'.join(tf_packages)})",
                lint[:-len(trees)] + [*map(str, subset), "--no-cache", f"-j{args.jobs}"],
                env=env, files=count)
    report(results, len(files), skipped, args.jobs)
    return 0


def run_flake8(corpus: Path, trees: list[Path], env: dict, run) -> None:
    flake8_cfg = corpus / "flake8.cfg"
    flake8_cfg.write_text("[flake8]\n[flake8:local-plugins]\nextension =\n"
                          f"    CTG = contiglint.flake8_plugin:ContiglintChecker\n"
                          f"paths = {ROOT}\n")
    run("flake8", "flake8 --select CTG",
        [sys.executable, "-m", "flake8", "--config", str(flake8_cfg), "--select", "CTG",
         "--exit-zero", *map(str, trees)], env=env)


def report(results: dict[str, Timing], files: int, skipped: int, jobs: int) -> None:
    parse = results["libcst"]
    print(f"\n{'measurement':38} {'files':>5} {'wall s':>8} {'CPU s':>8} {'files/s':>8} "
          f"{'÷libcst':>8} {'max RSS':>8}  runs")
    for timing in results.values():
        count = timing.files or files
        ratio = f"{timing.median / parse.median:8.2f}" if count == files else f"{'-':>8}"
        print(f"{timing.label:38} {count:5} {timing.median:8.2f} {timing.cpu_median:8.2f} "
              f"{count / timing.median:8.1f} {ratio} {timing.rss_mb:6.0f}MB  "
              f"{len(timing.wall)}")
    print(f"\nfiles: {files}; prefilter skipped: {skipped}")
    print("libcst / ast outputs:", results["libcst"].output.strip(), "|",
          results["ast"].output.strip())
    counts = per_code(results["coldN"].output)
    print("findings per code:", ", ".join(f"{c} {n}" for c, n in sorted(counts.items()))
          or "none")
    if "flake8" in results:
        flake8_total = len(re.findall(r":\d+:\d+: CTG\d+", results["flake8"].output))
        print(f"flake8 CTG findings: {flake8_total} (default rules; CLI all-rule total: "
              f"{sum(counts.values())})")
    if "torchfix" in results:
        print("torchfix says:", " / ".join(results["torchfix"].output.strip().splitlines()[-2:]))

    cold, cold1, warm = results["coldN"], results["cold1"], results["warm"]
    rss = max(t.rss_mb for k, t in results.items() if k.startswith(("cold", "fill", "warm")))
    targets = [(f"cold -j{jobs} <= 0.7x bare LibCST parse", cold.median / parse.median,
                cold.cpu_median / parse.cpu_median, 0.7, "x"),
               ("cold -j1 <= 0.7x bare LibCST parse", cold1.median / parse.median,
                cold1.cpu_median / parse.cpu_median, 0.7, "x"),
               (f"warm -j{jobs} <= 5% of cold -j{jobs}", 100 * warm.median / cold.median,
                100 * warm.cpu_median / cold.cpu_median, 5.0, "%"),
               ("peak RSS per process (max over contiglint runs) < 300 MB", rss, rss,
                300.0, "MB")]
    print(f"\n{'target':58} {'wall':>9} {'CPU':>9}")
    if "torchfix" in results:
        ours, theirs = results.get("coldN_tf", cold), results["torchfix"]
        speedup, cpu_speedup = theirs.median / ours.median, theirs.cpu_median / ours.cpu_median
        print(f"{'cold -j%d >= 15x faster than TorchFix' % jobs:58} {speedup:7.1f}x  "
              f"{cpu_speedup:7.1f}x   {'PASS' if speedup >= 15 else 'FAIL'}")
    else:
        print("TorchFix skipped: the 15x target is not measured")
    for name, value, cpu_value, limit, unit in targets:
        passed = value < limit if unit == "MB" else value <= limit
        print(f"{name:58} {value:7.2f}{unit:2} {cpu_value:7.2f}{unit:2}  "
              f"{'PASS' if passed else 'FAIL'}")


if __name__ == "__main__":
    sys.exit(main())
