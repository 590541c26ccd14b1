"""How much of the torch that real code uses does the op catalogue model?

    python benchmarks/catalogue_coverage.py [--trees DIR] [--top N] [-j 2]

Counts, over every `.py` file of the real-code corpus (the unpacked packages of
benchmarks/realcode.py, default `~/.cache/contiglint/realcode/trees`), each occurrence of one
of torch's public ops (`contiglint.catalogue.coverage.torch_ops()`): a function reached through
the module's imports (`torch.cat`, `F.gelu`, `th.linalg.svd`) and a method call or attribute
read whose name is a Tensor method or attribute (`x.transpose(...)`, `x.T`; the receiver's type
is not known, so `set.add` counts as `Tensor.add`). Prints the share of occurrences the catalogue
models, the share it models or lists as unmodelled with a reason, and the most frequent
unmodelled ops. The corpus is the precision work's tuning set; the catalogue was extended by
reading this benchmark's list, so the number is a tuning-set number.
"""
from __future__ import annotations

import argparse
import ast
import os
import sys
from collections import Counter
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from contiglint.catalogue import coverage  # noqa: E402
from contiglint.layout.syntax.names import ImportMap  # noqa: E402

DEFAULT = Path(os.environ.get("CONTIGLINT_REALCODE_DIR",
                              Path.home() / ".cache" / "contiglint" / "realcode")) / "trees"
_OPS: frozenset = frozenset()


def _init(ops: frozenset) -> None:
    global _OPS
    _OPS = ops


def count_file(path: str) -> Counter:
    counts: Counter = Counter()
    try:
        tree = ast.parse(Path(path).read_bytes())
    except (SyntaxError, ValueError, OSError):
        return counts
    names = ImportMap(tree)
    inner: set[int] = set()  # `torch.nn.functional` inside `torch.nn.functional.gelu`
    calls = {id(n.func) for n in ast.walk(tree) if isinstance(n, ast.Call)}
    for node in ast.walk(tree):
        if not isinstance(node, ast.Attribute) or id(node) in inner:
            continue
        inner.add(id(node.value))
        qualname = names.qualname(node)
        if qualname is not None:
            if qualname in _OPS:
                counts[qualname] += 1
            continue
        if node.attr in _OPS and (id(node) in calls or not callable_name(node.attr)):
            counts[node.attr] += 1
    return counts


def callable_name(name: str) -> bool:
    """A Tensor method (counted when called) rather than an attribute (counted when read)."""
    import torch
    return callable(getattr(torch.Tensor, name, None))


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--trees", type=Path, default=DEFAULT)
    parser.add_argument("--top", type=int, default=25)
    parser.add_argument("-j", "--jobs", type=int, default=1)
    args = parser.parse_args(argv)
    if not args.trees.is_dir():
        print(f"no corpus at {args.trees}: run benchmarks/realcode.py once to download it",
              file=sys.stderr)
        return 2
    ops = coverage.torch_ops()
    files = sorted(str(p) for p in args.trees.rglob("*.py"))
    total: Counter = Counter()
    with ProcessPoolExecutor(args.jobs, initializer=_init, initargs=(ops,)) as pool:
        for counts in pool.map(count_file, files, chunksize=64):
            total.update(counts)
    occurrences = sum(total.values())
    modelled = sum(c for n, c in total.items() if coverage.modelled(n))
    explained = sum(c for n, c in total.items() if coverage.explained(n))
    names_modelled = sum(coverage.modelled(n) for n in ops)
    names_explained = sum(coverage.explained(n) for n in ops)
    print(f"corpus: {len(files)} files under {args.trees}")
    print(f"torch public ops: {len(ops)}; modelled {names_modelled} "
          f"({100 * names_modelled / len(ops):.1f}%), modelled or explained {names_explained} "
          f"({100 * names_explained / len(ops):.1f}%)")
    print(f"op occurrences: {occurrences}; modelled {modelled} "
          f"({100 * modelled / occurrences:.2f}%), modelled or explained {explained} "
          f"({100 * explained / occurrences:.2f}%)")
    missing = [(n, c) for n, c in total.most_common() if not coverage.modelled(n)]
    print(f"most frequent unmodelled ops (of {len(missing)}):")
    for name, count in missing[:args.top]:
        print(f"  {count:7d}  {name}" + ("" if coverage.explained(name) else "  (no reason)"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
