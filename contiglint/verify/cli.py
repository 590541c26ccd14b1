"""`contiglint verify`: run the fixture programs under real torch and check the static model.

Unlike the plain lint, which never imports or executes the code it checks, this command
*executes* every `case_*()` of every fixture program it is given (each in its own process).
"""
from __future__ import annotations

import argparse
import contextlib
import os
import shutil
import sys
import tempfile
from pathlib import Path
from typing import Iterator, Optional, Sequence

DESCRIPTION = (
    "Check contiglint's layout model against real PyTorch. WARNING: this command EXECUTES the "
    "code of the fixture programs it is given (every top-level case_*() function, each in its "
    "own subprocess with a timeout); run it only on code you trust. For every line it compares "
    "the layouts torch actually produced with the engine's findings: a finding is confirmed, "
    "refuted (torch had the tensor contiguous: a false positive of the model), unconfirmed or "
    "not run; an unflagged line where torch showed a rule's hazard is missed. Fixtures with a "
    "<name>.fixed.py must run without layout errors and return the same values.")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="contiglint verify", description=DESCRIPTION,
        epilog="Exit status: 0 model and torch agree, 1 a claim was refuted or missed (or a "
               "marker, a fixed program or a run disagrees), 2 usage error.")
    parser.add_argument("paths", nargs="*", metavar="PATH",
                        help="fixture programs or directories of them (default: contiglint's "
                             "own fixtures, installed with it)")
    parser.add_argument("--device", choices=("auto", "cuda", "cpu"), default="auto",
                        help="auto: a GPU when torch sees one, else CUDA emulated on the CPU "
                             "(device moves become stride-preserving CPU copies); cuda: "
                             "require a GPU; cpu: always emulate")
    parser.add_argument("--format", choices=("text", "json"), default="text",
                        help="text: per-rule table and disagreements; json: every verdict "
                             "and every observation")
    parser.add_argument("-j", "--jobs", type=int, default=2, metavar="N",
                        help="worker processes (default: 2)")
    parser.add_argument("--case-timeout", type=float, default=60.0, metavar="SECONDS",
                        help="a case running longer is killed and reported (default: 60)")
    return parser


def main(argv: Optional[Sequence[str]] = None) -> int:
    args = build_parser().parse_args(list(sys.argv[1:] if argv is None else argv))
    if args.paths:
        return _verify(args)
    with default_fixtures() as directory:
        if directory is None:
            print("contiglint verify: error: contiglint's own fixtures are not installed "
                  "here; name the fixture programs to verify", file=sys.stderr)
            return 2
        args.paths = [directory]
        return _verify(args)


@contextlib.contextmanager
def default_fixtures() -> Iterator[Optional[str]]:
    """contiglint's own fixture set: the copy installed with the package
    (contiglint/verify/fixtures/, put there by setup.py), copied out first, since the tracer
    counts files under the package and site-packages as library code, not as the code it
    watches (the command works in the copy's parent directory meanwhile, so the report names
    `fixtures/...`); else, in a source checkout, its fixtures/ in place; else None."""
    packaged = Path(__file__).resolve().parent / "fixtures"
    checkout = Path(__file__).resolve().parents[2] / "fixtures"
    if not packaged.is_dir():
        yield os.path.relpath(checkout) if checkout.is_dir() else None
        return
    previous = os.getcwd()
    with tempfile.TemporaryDirectory(prefix="contiglint-verify-") as work:
        shutil.copytree(packaged, os.path.join(work, "fixtures"),
                        ignore=shutil.ignore_patterns("__pycache__"))
        os.chdir(work)
        try:
            yield "fixtures"
        finally:
            os.chdir(previous)


def _verify(args: argparse.Namespace) -> int:
    missing = [p for p in args.paths if not os.path.exists(p)]
    if missing:
        print(f"contiglint verify: error: no such file or directory: {', '.join(missing)}",
              file=sys.stderr)
        return 2
    if args.jobs < 1:
        print("contiglint verify: error: --jobs must be at least 1", file=sys.stderr)
        return 2
    import torch

    if args.device == "cuda" and not torch.cuda.is_available():
        print("contiglint verify: error: --device cuda: CUDA is not available (torch "
              f"{torch.__version__} sees no CUDA device); use --device auto or --device cpu "
              "to emulate it", file=sys.stderr)
        return 2
    from contiglint.verify.render import as_json, text
    from contiglint.verify.verifier import verify

    report = verify(args.paths, args.device, args.jobs, args.case_timeout)
    if not report.runs:
        print("contiglint verify: error: no fixture programs (*.py) under "
              + ", ".join(args.paths), file=sys.stderr)
        return 2
    sys.stdout.write(as_json(report) if args.format == "json" else text(report))
    return 1 if report.failing else 0


if __name__ == "__main__":
    sys.exit(main())
