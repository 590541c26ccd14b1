"""Do two versions of contiglint report the same findings? The check behind every speed change.

    python benchmarks/findings_diff.py BASE [NEW] [--targets realcode,bench,repo] [-j 2]
                                       [--modes default,strict] [--rules all|default]

BASE and NEW are git commits of this repository (NEW defaults to the working tree). Each one's
`contiglint/` package is exported to a temporary directory and run as the CLI (every rule, the
opt-in ones too, or with `--rules default` the default ones, as a run that selects nothing;
`--no-cache`, `--format json`) on the targets, in default and `--strict` mode:
  * realcode: the real-code corpus of benchmarks/realcode.py (downloaded there first),
  * bench: the corpus of benchmarks/bench.py (benchmarks/corpus, downloaded there first),
  * repo: fixtures/, examples/ and tests/eval/ of the working tree.
A target is linted as one run, as a user would, so cross-module contracts are part of it.
The finding sets (path, code, line, column, end, message) and error sets are compared; every
difference is printed. A commit's results are kept in benchmarks/corpus/findings-cache/ (keyed
by the commit, the target and the mode), so a base is linted once. Exit status: 0 identical,
1 different, 2 setup or lint failed.
"""
from __future__ import annotations

import argparse
import hashlib
import json
import os
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
CACHE = HERE / "corpus" / "findings-cache"
REPO_TARGETS = ("fixtures", "examples", "tests/eval")
# 2: results from before the lint ran with -P are not read (the repo target's were the
# working tree's, whatever commit they were filed under)
CACHE_FORMAT = 2


def realcode_trees() -> list[Path]:
    sys.path.insert(0, str(HERE))
    import realcode
    cache = realcode.default_cache()
    trees = [realcode.tree_of(cache, name) for name in realcode.PINNED]
    if not all(tree.exists() for tree in trees):
        trees = realcode.fetch(cache, list(realcode.PINNED))
    return trees


def bench_trees() -> list[Path]:
    sys.path.insert(0, str(HERE))
    import bench
    return bench.fetch_corpus(HERE / "corpus", list(bench.PINNED))


def targets(names: list[str]) -> dict[str, tuple[list[Path], Path]]:
    """target name -> (paths to lint, the directory to run in, which holds its config)."""
    out = {}
    for name in names:
        if name == "realcode":
            trees = realcode_trees()
            out[name] = (trees, trees[0].parent)
        elif name == "bench":
            trees = bench_trees()
            out[name] = (trees, trees[0].parent)
        elif name == "repo":
            out[name] = ([ROOT / t for t in REPO_TARGETS], ROOT)
        else:
            raise SystemExit(f"findings_diff: unknown target {name!r} "
                             "(known: realcode, bench, repo)")
    return out


def export(commit: str, into: Path) -> None:
    """The commit's contiglint package, unpacked below `into`."""
    archive = subprocess.run(["git", "-C", str(ROOT), "archive", commit, "contiglint"],
                             capture_output=True, check=True).stdout
    with tempfile.TemporaryFile() as handle:
        handle.write(archive)
        handle.seek(0)
        with tarfile.open(fileobj=handle) as tar:
            tar.extractall(into)


def codes(pythonpath: Path) -> str:
    # every code by name: what each version runs by default, and what is opt-in, may differ
    script = ("from contiglint.rules import all_rules; "
              "print(','.join(r.code for r in all_rules()))")
    return subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                          check=True, cwd=str(pythonpath),  # first on sys.path for -c
                          env=dict(os.environ, PYTHONPATH=str(pythonpath))
                          ).stdout.strip()


RUN_VERSION = ("import runpy, sys; sys.path.insert(0, sys.argv.pop(1)); "
               "runpy.run_module('contiglint', run_name='__main__', alter_sys=True)")


def lint(pythonpath: Path, paths: list[Path], cwd: Path, strict: bool, jobs: int,
         rules: str = "all") -> dict:
    env = dict(os.environ, PYTHONPATH=str(pythonpath), PYTHONDONTWRITEBYTECODE="1")
    config = ["--config", str(cwd / "pyproject.toml")] if (cwd / "pyproject.toml").exists() \
        and cwd != ROOT else []
    select = ["--select", codes(pythonpath)] if rules == "all" else []
    # `python -m` would put the folder it runs in first on sys.path: the repo target (run from
    # the checkout) would lint with the working tree's package whatever the version asked
    argv = [sys.executable, "-c", RUN_VERSION, str(pythonpath), *config, *select, "--no-cache",
            "--exit-zero", "--format", "json", f"-j{jobs}", *(["--strict"] if strict else []),
            *map(str, paths)]
    proc = subprocess.run(argv, capture_output=True, text=True, cwd=str(cwd), env=env)
    if proc.returncode not in (0, 2):
        raise RuntimeError(f"lint failed ({proc.returncode}):\n{proc.stderr[-3000:]}")
    try:
        report = json.loads(proc.stdout)
    except json.JSONDecodeError as error:
        raise RuntimeError(f"no JSON report ({error}):\n{proc.stdout[-1000:]}"
                           f"{proc.stderr[-2000:]}") from None
    findings = sorted({json.dumps(entry, sort_keys=True) for entry in report})
    return {"findings": findings, "stderr": sorted(set(proc.stderr.splitlines()))}


def results(version: str, names: list[str], modes: list[str], jobs: int,
            rules: str = "all") -> dict:
    """{(target, mode): result} for a commit (cached) or the working tree ("")."""
    out = {}
    with tempfile.TemporaryDirectory() as scratch:
        if version:
            commit = subprocess.run(["git", "-C", str(ROOT), "rev-parse", version],
                                    capture_output=True, text=True, check=True).stdout.strip()
            export(commit, Path(scratch))
            pythonpath = Path(scratch)
        else:
            commit, pythonpath = "", ROOT
        for name, (paths, cwd) in targets(names).items():
            for mode in modes:
                what = f"{CACHE_FORMAT} {commit} {name} {mode} {paths}" + (
                    "" if rules == "all" else f" {rules}")
                key = hashlib.sha256(what.encode()).hexdigest()[:16]
                cached = CACHE / f"{key}.json"
                if commit and cached.exists():
                    out[name, mode] = json.loads(cached.read_text())
                    continue
                print(f"  linting {name} ({mode}) with {version or 'the working tree'} ...",
                      flush=True)
                out[name, mode] = lint(pythonpath, paths, cwd, mode == "strict", jobs, rules)
                if commit:
                    CACHE.mkdir(parents=True, exist_ok=True)
                    cached.write_text(json.dumps(out[name, mode]))
    return out


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("base")
    parser.add_argument("new", nargs="?", default="", help="a commit (default: working tree)")
    parser.add_argument("--targets", default="realcode,bench,repo")
    parser.add_argument("--modes", default="default,strict")
    parser.add_argument("-j", "--jobs", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--rules", choices=("all", "default"), default="all",
                        help="every rule (default), or the default rules only")
    args = parser.parse_args(argv)
    names = [n for n in args.targets.split(",") if n]
    modes = [m for m in args.modes.split(",") if m]
    if set(modes) - {"default", "strict"}:
        parser.error(f"unknown modes {sorted(set(modes) - {'default', 'strict'})}")
    try:
        old = results(args.base, names, modes, args.jobs, args.rules)
        new = results(args.new, names, modes, args.jobs, args.rules)
    except (RuntimeError, subprocess.CalledProcessError) as error:
        print(f"findings_diff: {error}", file=sys.stderr)
        return 2
    different = False
    for key in old:
        for part in ("findings", "stderr"):
            gone = sorted(set(old[key][part]) - set(new[key][part]))
            added = sorted(set(new[key][part]) - set(old[key][part]))
            same = len(old[key][part]) - len(gone)
            print(f"{key[0]:9} {key[1]:8} {part:9} {len(old[key][part]):6} -> "
                  f"{len(new[key][part]):6}  only before {len(gone)}, only after {len(added)}"
                  f", shared {same}")
            for line in gone[:20]:
                print(f"    - {line}")
            for line in added[:20]:
                print(f"    + {line}")
            different |= bool(gone or added)
    print("DIFFERENT" if different else "IDENTICAL")
    return 1 if different else 0


if __name__ == "__main__":
    sys.exit(main())
