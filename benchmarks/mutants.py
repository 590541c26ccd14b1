"""How many layout bugs written into real code does contiglint catch? Recall on one-edit mutants.

    python benchmarks/mutants.py [--corpus tuning|heldout|fresh|unseen] [--cache DIR] [-j 2]
                                 [--json OUT] [--draw N] [--seed S]

Each mutant is one edit of correct code from a real package (operators and sites:
`mutant_sites.py`): `drop-contiguous` deletes a `.contiguous()` whose result reaches a
layout-sensitive sink in the same function, `reshape-to-view` turns `.reshape(` into `.view(`.
Sites were drawn at random with a fixed seed, a fixed number per package, and stored in
`mutants.json` with their label: `bug` when running the original and the mutated statement
under torch on realistic sizes (`mutants_repro/`, one case per mutant, citing package/path)
shows the mutant raising where the original did not, or reading different values; `harmless`
when it never does; `undecided` (left out, with the reason) when running cannot tell.

For every labelled mutant the original file and the mutated file are written into a temporary
copy (package-relative path, with the package modules it imports), and contiglint runs on both,
in the default mode and with every rule (`--preview --select ALL`). A mutant is caught (a bug)
or flagged (harmless) when the mutated file has a finding the original does not have, on the
mutated line or on the line of the sink the edit reaches. Printed per rule and overall: recall
of bug mutants and harmless mutants flagged, both modes side by side.

`--draw N` draws N sites per package (seed `--seed`) of the chosen corpus among those not yet
stored, and adds them to mutants.json as `unlabelled`, for a person to label by writing their
repro case. The stored sample is two such draws: 4 per package with the default seed, then 4
more with seed 20261204.
Corpora: the tuning set and the held-out and fresh lists of realcode.py, and `unseen`
(`mutants_unseen.json`: packages in none of them, cache `$CONTIGLINT_UNSEEN_DIR` or
`~/.cache/contiglint/unseen`). Exit status: 0 ran, 2 setup failed.
"""
from __future__ import annotations

import argparse
import ast
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile
from collections import Counter, defaultdict
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(HERE))
import mutant_sites  # noqa: E402
import realcode  # noqa: E402

MUTANTS = HERE / "mutants.json"
UNSEEN = HERE / "mutants_unseen.json"
CORPORA = ("tuning", "heldout", "fresh", "unseen")
# the default run; every rule; every rule in strict mode, which also reports sinks whose layout
# needs an assumption (no witness): what the witness policy leaves to strict mode
MODES = {"default": [], "all rules": ["--preview", "--select", "ALL"],
         "strict": ["--strict", "--preview", "--select", "ALL"]}
LABELS = ("bug", "harmless", "undecided", "unlabelled")
MAX_IMPORTED = 40  # package modules copied beside a mutated file


def use_corpus(corpus: str) -> None:
    """Point realcode at the corpus's pins and cache (the unseen list lives here)."""
    if corpus == "unseen":
        realcode.PINNED = json.loads(UNSEEN.read_text(encoding="utf-8"))["packages"]
        realcode.CACHE_ENV, realcode.CACHE_DIR = "CONTIGLINT_UNSEEN_DIR", "unseen"
    else:
        realcode.use_corpus(corpus)


def load(path: Path = MUTANTS) -> list[dict]:
    return json.loads(path.read_text(encoding="utf-8")) if path.exists() else []


def draw(trees: list[Path], per_package: int, seed: int, known: set = frozenset()) -> list[dict]:
    """`per_package` sites of each package, half of each operator where it has enough, drawn by
    a random generator seeded with the seed and the package's name, from the sites (in file
    order) whose key is not in `known` (the mutants stored by an earlier draw)."""
    drawn = []
    for tree in trees:
        name, version = tree.name.rsplit("-", 1)
        by_op: dict[str, list] = defaultdict(list)
        for file in sorted(tree.rglob("*.py")):
            rel = file.relative_to(tree).as_posix()
            for site in mutant_sites.sites_in(file.read_text(encoding="utf-8", errors="replace"),
                                              rel):
                if site.key(name, version) not in known:
                    by_op[site.operator].append(site)
        rng = random.Random(f"{seed}:{name}")
        want = {op: min(len(by_op[op]), per_package // len(mutant_sites.OPERATORS))
                for op in mutant_sites.OPERATORS}
        short = per_package - sum(want.values())
        for op in mutant_sites.OPERATORS:  # the other operator fills what one lacks
            extra = min(short, len(by_op[op]) - want[op])
            want[op] += extra
            short -= extra
        for op in mutant_sites.OPERATORS:
            for site in rng.sample(by_op[op], want[op]):
                drawn.append(entry_of(name, version, site))
    return drawn


def entry_of(name: str, version: str, site: mutant_sites.Site) -> dict:
    return {"package": name, "version": version, "path": site.path, "line": site.line,
            "operator": site.operator, "occurrence": site.occurrence,
            "original": site.original, "mutated": site.mutated, "sink": site.sink,
            "sink_lines": site.sink_lines, "label": "unlabelled", "case": None}


def imported_modules(tree: Path, rel: str, source: str) -> list[str]:
    """Package-relative paths of the package modules that the file imports (one level)."""
    try:
        module = ast.parse(source)
    except (SyntaxError, ValueError):
        return []
    package = Path(rel).parent.parts
    tops = {p.name for p in tree.iterdir() if p.is_dir()}
    found = []
    for node in ast.walk(module):
        names: list[tuple[str, ...]] = []
        if isinstance(node, ast.ImportFrom):
            base = package[:len(package) - node.level + 1] if node.level else ()
            if node.level and node.level - 1 > len(package):
                continue
            parts = base + tuple(filter(None, (node.module or "").split(".")))
            names = [parts] + [parts + (alias.name,) for alias in node.names]
        elif isinstance(node, ast.Import):
            names = [tuple(alias.name.split(".")) for alias in node.names]
        for parts in names:
            if not parts or parts[0] not in tops:
                continue
            for candidate in (Path(*parts).with_suffix(".py"), Path(*parts) / "__init__.py"):
                if (tree / candidate).is_file() and candidate.as_posix() != rel:
                    found.append(candidate.as_posix())
    return sorted(set(found))[:MAX_IMPORTED]


def findings(folder: Path, mode: list[str]) -> Counter:
    """(path inside folder, code, line) of every finding contiglint reports on the folder."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), env.get("PYTHONPATH")]))
    cmd = [sys.executable, "-m", "contiglint", "--format", "json", "--no-cache", "--exit-zero",
           "-j1", "-q", *mode, "."]
    proc = subprocess.run(cmd, capture_output=True, text=True, cwd=str(folder), env=env,
                          timeout=600)
    if proc.returncode not in (0, 1):
        raise realcode.SetupError(f"contiglint exited {proc.returncode} in {folder}:\n"
                                  f"{proc.stderr[-2000:]}")
    found = Counter()
    for f in json.loads(proc.stdout or "[]"):
        path = Path(f["path"])
        path = path.relative_to(folder) if path.is_absolute() else path
        found[(path.as_posix(), f["code"], f["line"])] += 1
    return found


def measure_one(entry: dict, tree: Path, work: Path) -> dict:
    """Lint the original and the mutated file (with their imports) in both modes; the new
    findings on the mutated or sink line, per mode."""
    source = (tree / entry["path"]).read_text(encoding="utf-8")
    site = mutant_sites.relocate(entry, source)
    if site is None:
        raise realcode.SetupError(f"{entry['package']}/{entry['path']}: no site reads "
                                  f"{entry['original'].strip()!r} any more")
    lines = {site.line, *site.sink_lines} | {line - entry["line"] + site.line
                                             for line in entry["sink_lines"]}
    for variant, text in (("orig", source), ("mut", mutant_sites.apply(source, site))):
        for rel in imported_modules(tree, entry["path"], source):
            target = work / variant / rel
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(tree / rel, target)
        target = work / variant / entry["path"]
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text, encoding="utf-8")
        (work / variant / "pyproject.toml").write_text("[tool.contiglint]\n")
    result = {}
    for mode, flags in MODES.items():
        before, after = findings(work / "orig", flags), findings(work / "mut", flags)
        new = after - before
        result[mode] = sorted({code for (path, code, line) in new
                               if path == entry["path"] and line in lines})
    return result


def measure(entries: list[dict], trees: dict[str, Path], jobs: int) -> list[dict]:
    with tempfile.TemporaryDirectory(prefix="contiglint-mutants-") as tmp:
        def one(indexed):
            i, entry = indexed
            tree = trees[f"{entry['package']}-{entry['version']}"]
            return {**entry, "new_findings": measure_one(entry, tree, Path(tmp) / str(i))}

        with ThreadPoolExecutor(max(1, jobs)) as pool:
            return list(pool.map(one, enumerate(entries)))


def tally(results: list[dict]) -> dict[str, dict[str, Counter]]:
    """Per mode: per rule and overall ('all'), bug mutants caught and harmless ones flagged
    (a mutant with new findings of two rules counts once for each rule, once overall)."""
    table: dict[str, dict[str, Counter]] = {}
    for mode in MODES:
        counts: dict[str, Counter] = defaultdict(Counter)
        for r in results:
            if r["label"] not in ("bug", "harmless"):
                continue
            counts["all"][r["label"]] += 1
            codes = r["new_findings"][mode]
            hit = "caught" if r["label"] == "bug" else "flagged"
            if codes:
                counts["all"][hit] += 1
            for code in codes:
                counts[code][hit] += 1
        table[mode] = counts
    return table


def _ratio(part: int, whole: int) -> str:
    return f"{part}/{whole} {part / whole:.0%}" if whole else f"{part}/0"


def print_table(results: list[dict], title: str) -> None:
    table = tally(results)
    bugs = sum(r["label"] == "bug" for r in results)
    harmless = sum(r["label"] == "harmless" for r in results)
    codes = sorted({c for mode in table.values() for c in mode} - {"all"}) + ["all"]
    print(f"\nmutant recall, {title}: {bugs} bug and {harmless} harmless mutants")
    print(f"{'rule / operator':<16}" + "".join(
        f"{mode + ': bugs caught':>{_width(mode)}}{'harmless flagged':>18}" for mode in MODES))
    for code in codes:
        print(_row(code, table, code, bugs, harmless))
    for op in mutant_sites.OPERATORS:  # the overall numbers of each operator's mutants
        some = [r for r in results if r["operator"] == op]
        print(_row(op, tally(some), "all", sum(r["label"] == "bug" for r in some),
                   sum(r["label"] == "harmless" for r in some)))


def _row(title: str, table: dict, code: str, bugs: int, harmless: int) -> str:
    row = f"{title:<16}"
    for mode in MODES:
        c = table[mode].get(code, Counter())
        row += f"{_ratio(c['caught'], bugs):>{_width(mode)}}"
        row += f"{_ratio(c['flagged'], harmless):>18}"
    return row


def _width(mode: str) -> int:
    return len(mode) + 16


def summary(entries: list[dict]) -> str:
    counts = Counter(e["label"] for e in entries)
    reasons = Counter(e.get("reason", "") for e in entries if e["label"] == "undecided")
    text = f"{len(entries)} mutants drawn: " + ", ".join(
        f"{counts[k]} {k}" for k in LABELS if counts[k])
    return text + "".join(f"\n  undecided ({n}): {why}" for why, n in reasons.most_common())


def run(corpus: str, cache: Path | None, jobs: int, json_out: Path | None = None,
        packages: list[str] | None = None) -> int:
    """Measure the stored mutants of one corpus and print the table (realcode.py calls this)."""
    use_corpus(corpus)
    cache = (cache or realcode.default_cache()).expanduser()
    entries = [e for e in load() if e.get("corpus", "tuning") == corpus
               and (packages is None or e["package"] in packages)]
    if not entries:
        print(f"\nno mutants stored for the {corpus} corpus (mutants.py --draw N adds some)")
        return 0
    print(f"\n{summary(entries)}")
    names = sorted({e["package"] for e in entries})
    unknown = [n for n in names if n not in realcode.PINNED]
    if unknown:
        print(f"mutants: {', '.join(unknown)} not pinned in the {corpus} corpus", file=sys.stderr)
        return 2
    try:
        trees = {t.name: t for t in realcode.fetch(cache, names)}
        results = measure([e for e in entries if e["label"] in ("bug", "harmless")], trees,
                          jobs)
    except (realcode.SetupError, OSError, subprocess.SubprocessError, ValueError) as error:
        print(f"mutants: {error}", file=sys.stderr)
        return 2
    print_table(results, f"{corpus} corpus")
    if json_out:
        try:
            json_out.write_text(json.dumps(results, indent=1) + "\n", encoding="utf-8")
        except OSError as error:
            print(f"mutants: cannot write --json {json_out}: {error}", file=sys.stderr)
            return 2
    return 0


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--corpus", choices=CORPORA, default="tuning")
    ap.add_argument("--cache", type=Path, default=None,
                    help="wheels and unpacked trees (default: the corpus's, as realcode.py)")
    ap.add_argument("--packages", help="comma-separated subset of the corpus's packages")
    ap.add_argument("-j", "--jobs", type=int, default=2)
    ap.add_argument("--json", type=Path, help="write every measured mutant here")
    ap.add_argument("--draw", type=int, metavar="N",
                    help="draw N sites per package and store the new ones, unlabelled")
    ap.add_argument("--seed", type=int, default=20261203)
    args = ap.parse_args(argv)
    if args.jobs < 1:
        ap.error(f"argument -j/--jobs: must be at least 1, got {args.jobs}")
    if args.json and not args.json.parent.is_dir():
        ap.error(f"argument --json: no folder {args.json.parent}")
    use_corpus(args.corpus)
    packages = None
    if args.packages:
        packages = [n.strip() for n in args.packages.split(",") if n.strip()]
        unknown = [n for n in packages if n not in realcode.PINNED]
        if unknown:
            ap.error(f"argument --packages: unknown package(s) {', '.join(unknown)}; "
                     f"pinned: {', '.join(realcode.PINNED)}")
    if args.draw is None:
        return run(args.corpus, args.cache, args.jobs, args.json, packages)
    if args.draw < 1:
        ap.error(f"argument --draw: must be at least 1, got {args.draw}")
    cache = (args.cache or realcode.default_cache()).expanduser()
    try:
        trees = realcode.fetch(cache, packages or list(realcode.PINNED))
    except (realcode.SetupError, OSError, subprocess.SubprocessError) as error:
        print(f"mutants: {error}", file=sys.stderr)
        return 2
    stored = load()
    known = {mutant_sites.key_of(e) for e in stored}
    added = [dict(e, corpus=args.corpus, seed=args.seed)
             for e in draw(trees, args.draw, args.seed, known)]
    MUTANTS.write_text(json.dumps(stored + added, indent=1) + "\n", encoding="utf-8")
    print(f"drew {len(added)} new mutants into {MUTANTS.name}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
