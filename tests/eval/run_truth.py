"""Ground truth for the held-out-style evaluation cases under tests/eval/<code>/.

Every case is a self-contained program with a ``def main():``.  Lines where torch
really misbehaves carry a trailing ``# hazard: CTGnnn`` comment (several codes may
be listed, comma-separated).  This runner executes each case's ``main()`` in its
own subprocess and checks the markers against what torch actually did.

Checkers are modular: ``CHECKERS`` maps a code to a function
``checker(case, result) -> CheckOutcome``.  A checker says which problems it found
and whether it *explains* the exception the run raised (if any).  A run that raises
an exception no checker explains is a failure, so clean cases must run cleanly.

To add a code: write a checker (``make_raise_checker`` covers codes whose hazard is
"torch raises on this line") and register it with ``register(code, checker)`` or
by adding it to ``CHECKERS``.  Codes without a checker are reported as UNCHECKED.

Usage:  python tests/eval/run_truth.py [PATH ...] [-j N] [-v]
        (default PATH: tests/eval; exit 1 on any disagreement)
"""
from __future__ import annotations

import argparse
import io
import json
import os
import re
import subprocess
import sys
import tokenize
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Dict, List, Optional

EVAL_DIR = Path(__file__).resolve().parent
MARKER_RE = re.compile(r"#\s*hazard:\s*(CTG\d{3}(?:\s*,\s*CTG\d{3})*)")
CODE_RE = re.compile(r"CTG\d{3}")


# --------------------------------------------------------------------------- cases
@dataclass
class Case:
    path: Path
    markers: Dict[str, List[int]]  # code -> hazard lines (sorted)

    @property
    def name(self) -> str:
        try:
            return str(self.path.relative_to(EVAL_DIR))
        except ValueError:
            return str(self.path)


def parse_markers(source: str) -> Dict[str, List[int]]:
    """Map code -> sorted line numbers of ``# hazard: CODE`` comments (real comments only)."""
    out: Dict[str, List[int]] = {}
    for tok in tokenize.generate_tokens(io.StringIO(source).readline):
        if tok.type != tokenize.COMMENT:
            continue
        m = MARKER_RE.search(tok.string)
        if not m:
            continue
        for code in CODE_RE.findall(m.group(1)):
            out.setdefault(code, []).append(tok.start[0])
    return {k: sorted(v) for k, v in out.items()}


def discover(paths: List[Path]) -> List[Case]:
    files: List[Path] = []
    for p in paths:
        p = p.resolve()
        if p.is_dir():
            files.extend(sorted(f for f in p.rglob("*.py")
                                if f.parent != EVAL_DIR and not f.name.startswith("_")))
        elif p.suffix == ".py":
            files.append(p)
    return [Case(f, parse_markers(f.read_text())) for f in files]


# ----------------------------------------------------------------------- execution
DRIVER = r"""
import json, sys, traceback, runpy, warnings, os
path = os.path.realpath(sys.argv[1])
res = {"raised": False}
try:
    import random
    random.seed(0)
    try:
        import numpy as np; np.random.seed(0)
    except Exception:
        pass
    try:
        import torch; torch.manual_seed(0)
    except Exception:
        pass
    with warnings.catch_warnings(record=True) as ws:
        warnings.simplefilter("always")
        ns = runpy.run_path(path, run_name="__eval_case__")
        ns["main"]()
    res["warnings"] = [{"category": w.category.__name__, "message": str(w.message),
                        "file": os.path.realpath(w.filename), "line": w.lineno} for w in ws]
except BaseException as e:
    tb = traceback.extract_tb(e.__traceback__)
    frames = [{"file": os.path.realpath(f.filename), "line": f.lineno, "name": f.name} for f in tb]
    case_frames = [f for f in frames if f["file"] == path]
    res.update(raised=True, exc_type=type(e).__name__, message=str(e), frames=frames,
               case_line=case_frames[-1]["line"] if case_frames else None)
print("@@RESULT@@" + json.dumps(res))
"""


def run_case(case: Case, timeout: float = 300.0) -> dict:
    env = dict(os.environ, PYTHONHASHSEED="0", PYTHONWARNINGS="ignore")
    try:
        proc = subprocess.run([sys.executable, "-c", DRIVER, str(case.path)], capture_output=True,
                              text=True, timeout=timeout, cwd=str(case.path.parent), env=env)
    except subprocess.TimeoutExpired:
        return {"raised": True, "exc_type": "Timeout", "message": f"> {timeout}s", "case_line": None}
    for line in proc.stdout.splitlines()[::-1]:
        if line.startswith("@@RESULT@@"):
            return json.loads(line[len("@@RESULT@@"):])
    return {"raised": True, "exc_type": "DriverCrash", "case_line": None,
            "message": (proc.stderr or proc.stdout)[-2000:]}


# ------------------------------------------------------------------------ checkers
@dataclass
class CheckOutcome:
    problems: List[str] = field(default_factory=list)
    explains_exception: bool = False


Checker = Callable[[Case, dict], CheckOutcome]


def make_raise_checker(code: str, exc_types: tuple, patterns: List[str]) -> Checker:
    """Hazard = torch raises (exception type in exc_types, message matching a pattern)
    at the marked line (innermost traceback frame inside the case file).  Because the
    first raise ends the run, such a case may carry at most one marker for ``code``."""
    pats = [re.compile(p) for p in patterns]

    def matches(result: dict) -> bool:
        return (result.get("raised") and result.get("exc_type") in exc_types
                and any(p.search(result.get("message", "")) for p in pats))

    def check(case: Case, result: dict) -> CheckOutcome:
        lines = case.markers.get(code, [])
        hit = matches(result)
        out = CheckOutcome(explains_exception=bool(hit and lines))
        if len(lines) > 1:
            out.problems.append(f"{code}: {len(lines)} markers {lines}, but a run raises only once")
        if lines:
            if not hit:
                out.problems.append(f"{code}: marked line {lines[0]} but run "
                                    + (f"raised {result.get('exc_type')}: {result.get('message','')[:120]}"
                                       f" at line {result.get('case_line')}" if result.get("raised")
                                       else "raised nothing"))
            elif result.get("case_line") not in lines:
                out.problems.append(f"{code}: raised at line {result.get('case_line')}, marked {lines}")
        elif hit:
            out.problems.append(f"{code}: unmarked {code} error at line {result.get('case_line')}: "
                                f"{result.get('message','')[:120]}")
        return out

    return check


VIEW_PATTERNS = [
    r"view size is not compatible with input tensor's size and stride",
    r"must be 1 to view \w+ as \w+ \(different element sizes\)",
]

CHECKERS: Dict[str, Checker] = {
    "CTG101": make_raise_checker("CTG101", ("RuntimeError",), VIEW_PATTERNS),
}

# Codes whose truth check is always run (even on files without their markers), so that
# e.g. an unmarked view error in a clean case is reported as a CTG101 problem.
ALWAYS_CHECK = {"CTG101"}


def register(code: str, checker: Checker, always: bool = False) -> None:
    CHECKERS[code] = checker
    if always:
        ALWAYS_CHECK.add(code)


# CTG102-CTG112: truth from an instrumented run of each case (tests/eval/truth_layout.py).
sys.path.insert(0, str(EVAL_DIR))
import truth_layout  # noqa: E402

truth_layout.register_all(register, CheckOutcome)


def check_case(case: Case, result: dict) -> dict:
    problems: List[str] = []
    unchecked: List[str] = []
    explained = False
    codes = sorted(set(case.markers) | ALWAYS_CHECK)
    for code in codes:
        checker = CHECKERS.get(code)
        if checker is None:
            unchecked.append(code)
            continue
        oc = checker(case, result)
        problems.extend(oc.problems)
        explained = explained or oc.explains_exception
    if result.get("raised") and not explained and not any(
            p.startswith(tuple(f"{c}: unmarked" for c in codes)) for p in problems):
        problems.append(f"unexpected {result.get('exc_type')} at line {result.get('case_line')}: "
                        f"{result.get('message','')[:200]}")
    return {"case": case.name, "markers": case.markers, "problems": problems,
            "unchecked": unchecked, "result": result}


def main(argv: Optional[List[str]] = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("paths", nargs="*", type=Path, default=[EVAL_DIR])
    ap.add_argument("-j", "--jobs", type=int, default=min(8, os.cpu_count() or 1))
    ap.add_argument("-v", "--verbose", action="store_true")
    ap.add_argument("--json", type=Path, help="write per-case results here")
    args = ap.parse_args(argv)

    cases = discover(args.paths)
    if not cases:
        print("no cases found", file=sys.stderr)
        return 1
    with ThreadPoolExecutor(args.jobs) as ex:
        results = list(ex.map(lambda c: check_case(c, run_case(c)), cases))

    bad = [r for r in results if r["problems"]]
    per_code: Dict[str, List[int]] = {}
    for r in results:
        for code, lines in r["markers"].items():
            per_code.setdefault(code, [0, 0])[0] += len(lines)
    for r in results:
        if r["problems"]:
            print(f"MISMATCH {r['case']}")
            for p in r["problems"]:
                print(f"    {p}")
        elif args.verbose:
            res = r["result"]
            print(f"ok       {r['case']}  markers={r['markers'] or '-'}"
                  + (f"  raised at {res.get('case_line')}" if res.get("raised") else ""))
        if r["unchecked"]:
            print(f"UNCHECKED {r['case']}: no checker for {', '.join(r['unchecked'])}")
    hazard_files = sum(1 for r in results if r["markers"])
    print(f"\n{len(results)} cases ({hazard_files} with hazard markers, "
          f"{len(results) - hazard_files} clean); markers per code: "
          + ", ".join(f"{c}={n[0]}" for c, n in sorted(per_code.items())))
    print("truth and markers agree" if not bad else f"{len(bad)} case(s) disagree")
    if args.json:
        args.json.write_text(json.dumps(results, indent=1))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
