"""What `--fix --unsafe-fixes` costs, and that every fixed file still parses.

    python benchmarks/fix_bench.py [--repeats 3] [--corpus-repeats 1] [--skip-corpus]
                                   [--tree PATH]

Two sets: the fixtures (fixtures/*/*.py, without the goldens) and the corpus of real model code
that bench.py downloads into benchmarks/corpus/ (reused when already there). Every file is fixed
in this process with all rules (opt-in ones too) and unsafe fixes, as `contiglint --fix
--unsafe-fixes` does, without writing anything; the same files are also only linted, for the
ratio. Printed per set: files, files changed, fixes applied, statement-level (LibCST) fixes
among them, seconds to lint and to fix (median of the repeats), and how many fixed files do
not re-parse (`ast.parse` and `libcst.parse_module`; must be 0). `--tree` benchmarks another
checkout of contiglint (for a before/after figure); `--strict` lints in strict mode, where real
code has many statement-level fixes. No test asserts timings.
"""
from __future__ import annotations

import argparse
import ast
import statistics
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeats", type=int, default=3, help="runs over the fixtures")
    parser.add_argument("--corpus-repeats", type=int, default=1, help="runs over the corpus")
    parser.add_argument("--skip-corpus", action="store_true")
    parser.add_argument("--strict", action="store_true",
                        help="strict mode: also sinks of unknown layout (many more statement "
                             "fixes on real code)")
    parser.add_argument("--tree", type=Path, default=HERE.parent,
                        help="the contiglint checkout to measure (default: this one)")
    args = parser.parse_args()
    sys.path.insert(0, str(args.tree.resolve()))
    sys.path.insert(1, str(HERE))
    from contiglint.engine import fix_source, lint_source
    from contiglint.rules import all_rules
    from contiglint.settings import Settings

    settings = Settings(select=tuple(rule.code for rule in all_rules()), strict=args.strict)
    statement_codes = {"CTG106", "CTG107", "CTG109", "CTG111"}
    sets = [("fixtures", sorted(p for p in (HERE.parent / "fixtures").rglob("*.py")
                                if not p.name.endswith(".fixed.py")), args.repeats)]
    if not args.skip_corpus:
        from bench import PINNED, fetch_corpus
        from contiglint.discovery import discover
        trees = fetch_corpus(HERE / "corpus", list(PINNED))
        files, errors = discover([str(tree) for tree in trees])
        sets.append(("corpus", sorted(Path(f) for f in files), args.corpus_repeats))
    print(f"contiglint from {args.tree.resolve()}{', strict mode' if args.strict else ''}")
    print(f"{'set':<9} {'files':>6} {'changed':>8} {'fixes':>6} {'stmt':>5} {'lint s':>8} "
          f"{'fix s':>8} {'fix/lint':>9} {'unparsable':>11}")
    for name, paths, repeats in sets:
        texts = [(str(p), p.read_text(encoding="utf-8-sig", errors="replace")) for p in paths]
        lint_times, fix_times = [], []
        for _ in range(max(repeats, 1)):
            start = time.perf_counter()
            linted = [lint_source(text, path, settings) for path, text in texts]
            lint_times.append(time.perf_counter() - start)
            start = time.perf_counter()
            fixed = [fix_source(text, path, settings, unsafe=True) for path, text in texts]
            fix_times.append(time.perf_counter() - start)
        statement = sum(1 for result in linted for f in result.findings
                        if f.fix is not None and f.code in statement_codes)
        changed = [(path, out.text) for (path, text), out in zip(texts, fixed) if out.text != text]
        unparsable = sum(not reparses(text) for _, text in changed)
        applied = sum(out.applied for out in fixed)
        lint, fix = statistics.median(lint_times), statistics.median(fix_times)
        print(f"{name:<9} {len(texts):>6} {len(changed):>8} {applied:>6} {statement:>5} "
              f"{lint:>8.2f} {fix:>8.2f} {fix / lint:>8.2f}x {unparsable:>11}", flush=True)
    return 0


def reparses(text: str) -> bool:
    import libcst

    try:
        ast.parse(text)
        libcst.parse_module(text)
    except (SyntaxError, libcst.ParserSyntaxError):
        return False
    return True


if __name__ == "__main__":
    sys.exit(main())
