"""How often is contiglint right on real PyTorch code? Findings and measured precision per rule.

    python benchmarks/realcode.py [--cache DIR] [--strict] [-j 2] [--packages timm,monai]
                                  [--json OUT] [--unjudged] [--corpus tuning|heldout|fresh|blind]

Corpus: the packages in PINNED, each downloaded by exact version with `pip download --no-deps`
and unpacked outside the repository, into `--cache` (default `$CONTIGLINT_REALCODE_DIR`, else
`~/.cache/contiglint/realcode`); both the wheel and the unpacked tree are reused on the next
run. Their code is never committed. These packages are the tuning set of the precision work:
the rules were tuned on them and on nothing else; the product is judged on code it never saw.

Every rule runs (the preview ones too, by their full codes), with the default settings (an empty
`[tool.contiglint]` table sits at the corpus root) or with `--strict`. Printed: findings per rule
and package, then per rule the verdicts read from `realcode_judged.json` next to this script:
true (a real hazard for some realistic input), false, unsure, and findings not judged yet, with
precision = true / judged (unsure counts against it). `--unjudged` lists the findings that have
no verdict; `--json` writes every finding with its key.

A verdict is keyed by package, version, the path inside the package, the code and the stripped
text of the flagged line, so that it survives line shifts; the reproduction scripts that back
the verdicts live in `realcode_repro/`. `tests/test_corpus_verdicts.py` checks every corpus's
verdicts against the current linter where the corpus is downloaded. Exit status: 0 ran, 2
setup or lint failed.

`--corpus heldout` measures the second, held-out list instead: the packages pinned in
`heldout.json` (none of them in the tuning set), cached in `$CONTIGLINT_HELDOUT_DIR` or
`~/.cache/contiglint/heldout`, judged in `heldout_judged.json` (reproductions in
`heldout_repro/`). Its verdicts were measured on the commit that `heldout.json` names; tuning
on them makes them tuning data. `--corpus fresh` is a third list of the same kind
(`fresh.json`, `fresh_judged.json`, `fresh_repro/`, cache `$CONTIGLINT_FRESH_DIR` or
`~/.cache/contiglint/fresh`), pinned after the held-out verdicts had been tuned on. `--corpus
blind` is a fourth (`blind.json`, `blind_judged.json`, `blind_repro/`, cache
`$CONTIGLINT_BLIND_DIR` or `~/.cache/contiglint/blind`), pinned after the fresh verdicts had been
tuned on and judged by a session that read none of contiglint's code.

After the precision table comes the recall of the corpus's stored mutants (`mutants.py`: bugs
written into the corpus's code, labelled by running them); `--no-mutants` skips it.
"""
from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import zipfile
from collections import Counter, defaultdict
from datetime import date
from pathlib import Path
from typing import NamedTuple

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
JUDGED = HERE / "realcode_judged.json"
REPRO = HERE / "realcode_repro"
PINNED = {
    "torchvision": "0.29.1",
    "timm": "1.0.31",
    "transformers": "5.24.0",
    "monai": "1.6.1",
    "torch-geometric": "2.8.1",
    "speechbrain": "1.1.2",
    "segmentation-models-pytorch": "0.6.0",
    "torchrec": "1.9.2",
    "pyannote-audio": "4.0.7",
    "gpytorch": "1.15.2",
    "torchrl": "0.14.1",
    "tensordict": "0.15.3",
    "captum": "0.9.0",
    "x-transformers": "2.31.10",
    "vector-quantize-pytorch": "1.32.0",
    "liger-kernel": "0.8.5",
    "megatron-core": "0.16.1",
}
sys.path.insert(0, str(ROOT))  # this checkout's contiglint, installed or not
HELDOUT = HERE / "heldout.json"
FRESH = HERE / "fresh.json"
BLIND = HERE / "blind.json"
CACHE_ENV, CACHE_DIR = "CONTIGLINT_REALCODE_DIR", "realcode"


class Corpus(NamedTuple):
    """A corpus beside the tuning set: each later list was measured before anyone tuned on it."""
    pins: Path  # {"about", "measured_on", "packages": {name: version}}
    judged: str  # verdicts file, next to this script
    repro: str  # reproduction scripts' folder, next to this script
    cache_env: str
    cache_dir: str  # under ~/.cache/contiglint
    recorded_as: str  # its section in contiglint/rules/precision.json


CORPORA = {
    "heldout": Corpus(HELDOUT, "heldout_judged.json", "heldout_repro", "CONTIGLINT_HELDOUT_DIR",
                      "heldout", "held-out"),
    "fresh": Corpus(FRESH, "fresh_judged.json", "fresh_repro", "CONTIGLINT_FRESH_DIR", "fresh",
                    "fresh"),
    "blind": Corpus(BLIND, "blind_judged.json", "blind_repro", "CONTIGLINT_BLIND_DIR", "blind",
                    "blind"),
}


def use_corpus(corpus: str) -> None:
    """Point this module at a corpus other than the tuning set: its pins, verdicts and cache."""
    global PINNED, JUDGED, REPRO, CACHE_ENV, CACHE_DIR
    if corpus in CORPORA:
        chosen = CORPORA[corpus]
        PINNED = json.loads(chosen.pins.read_text(encoding="utf-8"))["packages"]
        JUDGED, REPRO = HERE / chosen.judged, HERE / chosen.repro
        CACHE_ENV, CACHE_DIR = chosen.cache_env, chosen.cache_dir


class SetupError(Exception):
    pass


def default_cache() -> Path:
    env = os.environ.get(CACHE_ENV)
    return Path(env).expanduser() if env else Path.home() / ".cache" / "contiglint" / CACHE_DIR


def tree_of(cache: Path, name: str) -> Path:
    return cache / "trees" / f"{name}-{PINNED[name]}"


def fetch(cache: Path, names: list[str]) -> list[Path]:
    """Download each pinned wheel once and unpack it; a complete tree is reused."""
    trees = []
    wheels_dir = cache / "wheels"
    wheels_dir.mkdir(parents=True, exist_ok=True)
    for name in names:
        tree = tree_of(cache, name)
        if not (tree / ".complete").exists():
            wheel = _wheel(wheels_dir, name)
            print(f"unpacking {wheel.name} ...", file=sys.stderr, flush=True)
            shutil.rmtree(tree, ignore_errors=True)
            with zipfile.ZipFile(wheel) as archive:
                archive.extractall(tree)
            (tree / ".complete").write_text(wheel.name + "\n")
        trees.append(tree)
    # The corpus is linted with the defaults, whatever configuration surrounds the cache.
    (cache / "trees" / "pyproject.toml").write_text("[tool.contiglint]\n")
    return trees


def _normalised(name: str) -> str:
    return name.lower().replace("-", "_")


def _wheel(wheels_dir: Path, name: str) -> Path:
    prefix = f"{_normalised(name)}-{PINNED[name]}-"
    found = [w for w in wheels_dir.glob("*.whl") if w.name.lower().startswith(prefix)]
    if not found:
        print(f"downloading {name}=={PINNED[name]} ...", file=sys.stderr, flush=True)
        with tempfile.TemporaryDirectory() as download:
            result = subprocess.run(
                [sys.executable, "-m", "pip", "download", "--no-deps", "--only-binary=:all:",
                 f"{name}=={PINNED[name]}", "-d", download],
                capture_output=True, text=True, timeout=900)
            if result.returncode:
                raise SetupError(f"pip download {name}=={PINNED[name]} failed:\n"
                                 f"{result.stdout[-2000:]}{result.stderr[-2000:]}")
            got = list(Path(download).glob("*.whl"))
            if len(got) != 1:
                raise SetupError(f"expected one wheel for {name}, got {[g.name for g in got]}")
            shutil.move(str(got[0]), wheels_dir / got[0].name)
            found = [wheels_dir / got[0].name]
    return found[0]


def all_codes() -> list[str]:
    from contiglint.rules import all_rules

    return [rule.code for rule in all_rules()]


def lint(cache: Path, trees: list[Path], strict: bool, jobs: int,
         files: list[Path] | None = None) -> list[dict]:
    """Every finding of every rule on `trees` (or only on `files`), each with its key."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), env.get("PYTHONPATH")]))
    cmd = [sys.executable, "-m", "contiglint", "--format", "json", "--exit-zero", "--no-cache",
           f"-j{jobs}", "--extend-select", ",".join(all_codes()),
           *(["--strict"] if strict else []), *map(str, files if files is not None else trees)]
    proc = subprocess.run(cmd, capture_output=True, text=True, cwd=str(cache / "trees"), env=env)
    if proc.returncode not in (0, 1):
        raise SetupError(f"contiglint exited {proc.returncode}:\n{proc.stderr[-4000:]}")
    found = []
    lines_of: dict[str, list[str]] = {}
    for finding in json.loads(proc.stdout or "[]"):
        path = Path(finding["path"])
        if not path.is_absolute():
            path = cache / "trees" / path
        tree = next((t for t in trees if path.is_relative_to(t)), None)
        if tree is None:
            continue
        name, version = tree.name.rsplit("-", 1)
        if str(path) not in lines_of:
            lines_of[str(path)] = path.read_text(encoding="utf-8", errors="replace").splitlines()
        text = lines_of[str(path)][finding["line"] - 1].strip()
        found.append({"package": name, "version": version,
                      "path": path.relative_to(tree).as_posix(), "code": finding["code"],
                      "text": text, "line": finding["line"], "message": finding["message"]})
    return found


def key(entry: dict) -> tuple:
    return (entry["package"], entry["version"], entry["path"], entry["code"], entry["text"])


def load_judged() -> dict[tuple, dict]:
    if not JUDGED.exists():
        return {}
    return {key(entry): entry for entry in json.loads(JUDGED.read_text())}


def tally(findings: list[dict], judged: dict[tuple, dict]) -> dict[str, Counter]:
    """Per code: findings, true, false, unsure and unjudged, counting distinct keys."""
    per_code: dict[str, Counter] = defaultdict(Counter)
    for k in {key(f) for f in findings}:
        verdict = judged.get(k, {}).get("verdict", "unjudged")
        per_code[k[3]]["findings"] += 1
        per_code[k[3]][verdict] += 1
    return per_code


def precision(counts: Counter) -> float | None:
    judged = counts["true"] + counts["false"] + counts["unsure"]
    return counts["true"] / judged if judged else None


def print_tables(findings: list[dict], judged: dict[tuple, dict], names: list[str]) -> None:
    by = Counter((f["code"], f["package"]) for f in findings)
    codes = sorted({f["code"] for f in findings})
    active = [n for n in names if any(by[c, n] for c in codes)]
    print(f"\nfindings per rule and package ({len(findings)} findings)")
    print(f"{'package':<30}" + "".join(f"{c:>8}" for c in codes))
    for name in active:
        print(f"{name:<30}" + "".join(f"{by[c, name] or '.':>8}" for c in codes))
    print(f"{'total':<30}" + "".join(f"{sum(by[c, n] for n in names):>8}" for c in codes))
    from contiglint.rules import registry, rule_by_code

    per_code = tally(findings, judged)
    print("\nverdicts per rule (distinct flagged lines)")
    print(f"{'code':<8}{'status':>9}{'findings':>10}{'true':>6}{'false':>7}{'unsure':>8}"
          f"{'unjudged':>10}{'precision':>11}")
    total = Counter()
    for code in sorted(per_code):
        counts = per_code[code]
        total.update(counts)
        rule = rule_by_code(code)
        status = "opt-in" if rule is not None and registry.is_opt_in(rule) else "default"
        value = precision(counts)
        print(f"{code:<8}{status:>9}{counts['findings']:>10}{counts['true']:>6}"
              f"{counts['false']:>7}{counts['unsure']:>8}{counts['unjudged']:>10}"
              f"{'-' if value is None else f'{value:.0%}':>11}")
    value = precision(total)
    print(f"{'all':<8}{'':>9}{total['findings']:>10}{total['true']:>6}{total['false']:>7}"
          f"{total['unsure']:>8}{total['unjudged']:>10}"
          f"{'-' if value is None else f'{value:.0%}':>11}")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--corpus", choices=("tuning", *CORPORA), default="tuning",
                    help="the tuning set pinned here (default), or the list of heldout.json, "
                         "fresh.json or blind.json (cache: $CONTIGLINT_<NAME>_DIR or "
                         "~/.cache/contiglint/<name>)")
    ap.add_argument("--cache", type=Path, default=None,
                    help="where wheels and unpacked trees live (default: "
                         "$CONTIGLINT_REALCODE_DIR or ~/.cache/contiglint/realcode)")
    ap.add_argument("--packages", help="comma-separated subset of the pinned packages")
    ap.add_argument("--strict", action="store_true", help="lint with --strict")
    ap.add_argument("-j", "--jobs", type=int, default=2)
    ap.add_argument("--json", type=Path, help="write every finding with its key here")
    ap.add_argument("--unjudged", action="store_true", help="list findings without a verdict")
    ap.add_argument("--no-mutants", action="store_true",
                    help="skip the mutant recall table (benchmarks/mutants.py)")
    ap.add_argument("--record", action="store_true",
                    help="write the per-rule verdict counts to contiglint/rules/precision.json "
                         "(default mode, every package only)")
    args = ap.parse_args(argv)
    use_corpus(args.corpus)
    args.cache = args.cache or default_cache()
    names = list(PINNED)
    if args.packages:
        names = [n.strip() for n in args.packages.split(",") if n.strip()]
        unknown = [n for n in names if n not in PINNED]
        if unknown:
            print(f"unknown package(s) {', '.join(unknown)}; pinned: {', '.join(PINNED)}",
                  file=sys.stderr)
            return 2
    try:
        trees = fetch(args.cache.expanduser(), names)
        findings = lint(args.cache.expanduser(), trees, args.strict, args.jobs)
    except (SetupError, OSError, subprocess.SubprocessError) as error:
        print(f"realcode: {error}", file=sys.stderr)
        return 2
    files = sum(1 for tree in trees for _ in tree.rglob("*.py"))
    print(f"{len(names)} packages, {files} *.py files, mode: "
          f"{'--strict' if args.strict else 'default'}, corpus: {args.corpus}")
    judged = load_judged()
    print_tables(findings, judged, names)
    if args.unjudged:
        print("\nunjudged findings")
        for f in sorted(findings, key=lambda f: (f["code"], f["package"], f["path"], f["line"])):
            if key(f) not in judged:
                print(f"{f['code']} {f['package']}/{f['path']}:{f['line']}: {f['text']}\n"
                      f"    {f['message']}")
    if args.json:
        args.json.write_text(json.dumps(findings, indent=1) + "\n")
    if not args.no_mutants:
        import mutants

        if mutants.run(args.corpus, args.cache, args.jobs, packages=names):
            return 2
    if args.record:
        if args.strict or args.packages:
            print("realcode: --record measures the default mode on every package of the corpus",
                  file=sys.stderr)
            return 2
        record(args.corpus, tally(findings, judged))
    return 0


def record(corpus: str, per_code: dict[str, Counter]) -> None:
    """The measured numbers of one corpus, as the data the rules' documentation and policy
    read (contiglint/rules/precision.py reads both corpora together)."""
    from contiglint.rules import precision

    rules = {code: {name: per_code[code][name]
                    for name in ("findings", "true", "false", "unsure", "unjudged")}
             for code in all_codes()}
    if corpus == "tuning":
        name, text = "tuning", (f"the {len(PINNED)} tuning packages pinned in "
                                f"benchmarks/realcode.py")
    else:
        name = CORPORA[corpus].recorded_as
        text = f"the {len(PINNED)} {name} packages pinned in benchmarks/{CORPORA[corpus].pins.name}"
    data = json.loads(precision.DATA.read_text(encoding="utf-8"))
    data.setdefault("corpora", {})[name] = {"date": date.today().isoformat(), "corpus": text,
                                           "rules": rules}
    precision.DATA.write_text(json.dumps(data, indent=1) + "\n", encoding="utf-8")
    print(f"recorded the {name} corpus in {precision.DATA.relative_to(ROOT)}")


if __name__ == "__main__":
    sys.exit(main())
