"""How fast is contiglint on real model code, next to ruff, TorchFix, flake8 and a bare parse?

    python benchmarks/bench.py [--repeats 3] [--pairs 3] [--torchfix-repeats 1] [--jobs N]
                               [--packages transformers,timm,torchvision] [--skip-torchfix]
                               [--ruff-only] [--rules both|all|default]

Corpus: fixed wheels from PyPI (`pip download --no-deps`), unpacked into benchmarks/corpus/
(git-ignored, never committed) and reused when already there. Every tool gets exactly the
`*.py` files contiglint discovers there, so files/s are comparable. The rule sets: every rule
(`all`: preview and opt-in ones too) and the default set (`default`); `--rules both` (the
default) measures each of them wherever contiglint is measured more than once.

Measured, each as a fresh subprocess, median of `--repeats` runs (TorchFix: `--torchfix-repeats`,
default 1 because one run takes minutes), with min and max:
  * ruff (`ruff check --select ALL --no-cache`, every rule, its own threads, diagnostics written
    to a file in its default format) and contiglint cold -jN with each rule set, in `--pairs`
    rounds whose order turns by one each round, so that each runs first as often and load from
    elsewhere on the machine falls on all; the ratio to ruff is taken within each round. ruff
    runs from its own virtual environment (benchmarks/corpus/ruff-venv, pinned), with
    `--isolated` so that no configuration file in the wheels or around the corpus changes its
    rule set. ruff with `--output-format concise` (one line per diagnostic) is timed too, for
    reference: writing its default format's source snippets is a large part of ruff's time;
  * contiglint cold -j1 (`--no-cache`, the first rule set);
  * linearity: contiglint cold -jN (the first rule set) on an interleaved quarter and half of
    the files and on all of them, in rounds of the three in turn; the CPU seconds per MB of the
    second half (full - half) over those of the second quarter (half - quarter) is 1.0 when
    the cost is linear in corpus size (start-up cancels);
  * contiglint warm, each rule set: the same -jN run again with a cache that a first run has
    filled (3x `--repeats` runs, as for the start-up rows: each takes well under a second);
  * TorchFix's CLI with its default rules and jobs (it runs in its own virtual environment,
    benchmarks/corpus/torchfix-venv, so that its libcst pin and its TOR flake8 plugin never
    touch this environment; it needs neither torch nor CUDA);
  * `flake8 --select CTG` (contiglint's plugin, default rules, flake8's default jobs);
  * a bare single-process `libcst.parse_module` of every file (TorchFix's libcst), and
    `ast.parse` for reference.
`--ruff-only` runs the ruff rounds alone (for comparing two commits: run it from each checkout
with the same `--corpus`).
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

Targets get PASS/FAIL, judged on wall time (CPU alongside; linearity on CPU). Issue 31: cold
-jN with every rule <= ruff and with the default set <= 0.7x ruff (medians of the per-round
ratios); linear in corpus size (marginal cost ratio <= 1.2); warm <= 3% of cold, each rule
set; peak RSS <= 150 MB per process. Issue 8: cold -jN >= 15x faster than TorchFix; cold <=
0.7x the bare LibCST parse. No test asserts timings; this script is the measurement
(bench_runs.py runs the commands, bench_report.py prints the result).

A run that fails is never a number: every command must exit with the status it is expected to
(0: all run with --exit-zero or print a summary) and its output must look like a completed run
(e.g. flake8 without a traceback, ruff's output file written, the parse scripts covering every
file); otherwise the bench stops with exit status 2 and shows the tool's output.
"""
from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Optional

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(ROOT))  # this checkout's contiglint, installed or not
sys.path.insert(0, str(HERE))

import bench_runs as runs  # noqa: E402
from bench_report import CANARY, report, report_pairs  # noqa: E402
from bench_runs import (  # noqa: E402,F401 - PINNED and fetch_corpus: other scripts' too
    PARSE_SCRIPT, PINNED, RUFF, TORCHFIX, BenchError, Timing, fetch_corpus, installed_copy,
    line_count, measure, no_traceback, parsed_all, runtime_requirements, tool_python,
)


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
    parser.add_argument("--rules", choices=("both", "all", "default"), default="both",
                        help="contiglint's rules: every rule (opt-in and preview ones too) "
                             "and the default set, each in every measurement of contiglint "
                             "alone and in every ruff round (both, the default), or one of them")
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
    sets = ["all", "default"] if args.rules == "both" else [args.rules]
    selects = {name: all_codes() if name == "all" else ["CTG"] for name in sets}
    files, skipped = corpus_facts(trees, selects[sets[0]])
    skips = {sets[0]: skipped}
    for name in sets[1:]:
        skips[name] = corpus_facts(trees, selects[name])[1]
    listing = corpus / "files.txt"
    listing.write_text("\n".join(files) + "\n")
    size_mb = sum(os.path.getsize(path) for path in files) / 1e6
    print(f"corpus: {', '.join(t.name for t in trees)}: {len(files)} files, {size_mb:.1f} MB; "
          + "; ".join(f"rules {name} ({','.join(selects[name])}): prefilter skips {skips[name]}"
                      for name in sets) + f"; -jN = -j{args.jobs}", flush=True)

    # `-m contiglint` imports the copy from the folder every measured command runs in
    runs.RUN_DIR = installed_copy(corpus)
    env = dict(os.environ, PYTHONPATH=str(runs.RUN_DIR), PYTHONDONTWRITEBYTECODE="1")
    python = tool_python(corpus, "contiglint", " ".join(runtime_requirements()))
    lints = {name: [python, "-m", "contiglint", "--config", str(corpus / "pyproject.toml"),
                    "--select", ",".join(selects[name]), "-q", "--statistics", "--exit-zero"]
             for name in sets}
    lint = lints[sets[0]]  # the rows that measure one rule set: the first
    results: dict[str, Timing] = {}
    run = lambda key, label, argv, n=args.repeats, **kw: results.__setitem__(  # noqa: E731
        key, measure(label, argv, n, args.timeout, **kw))
    every = parsed_all(len(files))
    colds = {name: lints[name] + ["--no-cache", f"-j{args.jobs}", *map(str, trees)]
             for name in sets}
    if args.ruff_only:
        ruff_rounds(args, corpus, files, colds, env, results, concise=False)
        report_pairs(results, args.jobs, sets)
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
    run("cold1", f"contiglint cold -j1 ({sets[0]})",
        lint + ["--no-cache", "-j1", *map(str, trees)], env=env)
    ruff_rounds(args, corpus, files, colds, env, results)
    for name in sets:
        cache = corpus / ".contiglint_cache" / name
        warm_env = dict(env, CONTIGLINT_CACHE_DIR=str(cache))
        run(f"fill_{name}", f"contiglint cache fill -j{args.jobs} ({name})",
            lints[name] + [f"-j{args.jobs}", *map(str, trees)], env=warm_env,
            before=lambda: shutil.rmtree(cache, ignore_errors=True))
        run(f"warm_{name}", f"contiglint warm -j{args.jobs} ({name})",
            lints[name] + [f"-j{args.jobs}", *map(str, trees)], n=quick, env=warm_env)
    if not args.skip_linearity:
        # rounds of a quarter, a half and all of the files in turn, so that the three are
        # measured under the same load (a difference of medians taken minutes apart is
        # mostly the machine's)
        for share in (4, 2, 1):
            subset = files[::share]
            label = f"contiglint cold -j{args.jobs}, 1/{share} of files" if share > 1 else \
                f"contiglint cold -j{args.jobs}, all files"
            results[f"part{share}"] = Timing(f"{label} ({sets[0]})", files=len(subset))
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
    report(results, len(files), skips, args.jobs, sets)
    return 0


def ruff_rounds(args: argparse.Namespace, corpus: Path, files: list[str],
                colds: dict[str, list[str]], env: dict, results: dict[str, Timing],
                concise: bool = True) -> None:
    """ruff and contiglint cold -jN with each rule set, in `--pairs` rounds whose order turns
    by one each round (so each tool runs first, and after each other, as often); the ratio
    to ruff is taken within each round."""
    ruff = str(Path(tool_python(corpus, "ruff", RUFF)).parent / "ruff")
    output = corpus / "ruff-output.txt"
    argv = [ruff, "check", "--isolated", "--select", "ALL", "--no-cache", "--exit-zero",
            "--quiet", "--output-file", str(output), *files]

    def written(_: str) -> Optional[str]:
        if not output.exists() or output.stat().st_size == 0:
            return f"ruff wrote no diagnostics to {output}"
        return None

    theirs = results["ruff"] = Timing("ruff --select ALL --no-cache")
    steps = [(theirs, argv, None, written, lambda: output.unlink(missing_ok=True))]
    for name, cold in colds.items():
        ours = results[f"coldN_{name}"] = Timing(f"contiglint cold -j{args.jobs} ({name})")
        steps.append((ours, cold, env, None, None))
    for index in range(args.pairs):
        turn = index % len(steps)
        for timing, command, environment, check, before in steps[turn:] + steps[:turn]:
            measure(timing.label, command, 1, args.timeout, env=environment, check=check,
                    before=before, timing=timing)
    if concise:  # for reference: one line per diagnostic instead of ruff's source snippets
        short = argv[:-len(files) - 2] + ["--output-format", "concise", *argv[-len(files) - 2:]]
        results["ruff_concise"] = measure("ruff, concise output (reference)", short,
                                          args.repeats, args.timeout, check=written,
                                          before=lambda: output.unlink(missing_ok=True))
        theirs.findings = line_count(output)  # one line per diagnostic
    for name in colds:
        ours = results[f"coldN_{name}"]
        results[f"ruff_ratio_{name}"] = [a / b for a, b in zip(ours.wall, theirs.wall)]
        results[f"ruff_cpu_ratio_{name}"] = [a / b for a, b in zip(ours.cpu, theirs.cpu)]


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
        f"paths = {runs.RUN_DIR}\n")))

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


if __name__ == "__main__":
    sys.exit(main())
