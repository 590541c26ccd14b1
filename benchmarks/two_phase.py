"""What the cross-file contract phase costs: cold `contiglint check` with and without it.

    python benchmarks/two_phase.py [--jobs 2] [--repeats 3] [--packages transformers,timm]

A project run (several files, `process_files` in contiglint/runner.py) first summarizes the
contracts of every module, joins them, then lints each file with them. This script times cold
runs (`--no-cache`, every rule) of the benchmark corpus (benchmarks/bench.py fetches it into
benchmarks/corpus/) as they are, and with the summary phase switched off in the measuring
process (`runner._first_pass_in_worker` returning None: no project contracts, each module's own
learned in its lint), in alternating pairs so that load from elsewhere falls on both. Prints
the median wall and CPU seconds of each and the median per-pair ratio. No test asserts these
numbers.
"""
from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "benchmarks"))

import bench  # noqa: E402

DRIVER = """\
import sys
import contiglint.runner as runner
if sys.argv[1] == "off":  # the code, not the name: the pool pickles it by reference
    runner._first_pass_in_worker.__code__ = (lambda path: None).__code__
from contiglint.cli import main
sys.exit(main(sys.argv[2:]))
"""


def timed(phase: str, trees: list[Path], jobs: int) -> tuple[float, float]:
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    command = [sys.executable, "-c", DRIVER, phase, "check", "--no-cache", "--exit-zero",
               "--quiet", "--select", "CTG", "--jobs", str(jobs), *map(str, trees)]
    start = time.perf_counter()
    process = subprocess.Popen(command, env=env, stdout=subprocess.DEVNULL,
                               stderr=subprocess.PIPE, cwd=trees[0].parent)
    _, status, usage = os.wait4(process.pid, 0)
    wall = time.perf_counter() - start
    stderr = process.stderr.read().decode() if process.stderr else ""
    if os.waitstatus_to_exitcode(status) != 0:
        raise SystemExit(f"contiglint failed ({phase}):\n{stderr[-2000:]}")
    return wall, usage.ru_utime + usage.ru_stime


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--packages", default=",".join(bench.PINNED))
    args = parser.parse_args(argv)
    trees = bench.fetch_corpus(ROOT / "benchmarks" / "corpus", args.packages.split(","))
    files = sum(1 for tree in trees for _ in tree.rglob("*.py"))
    print(f"corpus: {files} files in {', '.join(t.name for t in trees)}; -j{args.jobs}")
    runs: dict[str, list[tuple[float, float]]] = {"on": [], "off": []}
    for pair in range(args.repeats):
        order = ("on", "off") if pair % 2 == 0 else ("off", "on")
        for phase in order:
            runs[phase].append(timed(phase, trees, args.jobs))
            wall, cpu = runs[phase][-1]
            print(f"  pair {pair + 1} summary phase {phase:>3}: {wall:6.2f} s wall "
                  f"{cpu:6.2f} s CPU", flush=True)
    for phase, label in (("on", "two phases (as shipped)"), ("off", "no summary phase")):
        walls, cpus = zip(*runs[phase])
        print(f"{label:<26} median {statistics.median(walls):6.2f} s wall "
              f"{statistics.median(cpus):6.2f} s CPU")
    ratios = [on[0] / off[0] for on, off in zip(runs["on"], runs["off"])]
    cpu_ratios = [on[1] / off[1] for on, off in zip(runs["on"], runs["off"])]
    print(f"ratio two phases / no summary phase: wall {statistics.median(ratios):.3f}, "
          f"CPU {statistics.median(cpu_ratios):.3f} (median of {len(ratios)} pairs)")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
