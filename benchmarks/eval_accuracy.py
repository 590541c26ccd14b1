"""Accuracy of contiglint on the blind cases under tests/eval/<code>/ and tests/eval/general/<code>/.

Truth comes from the ``# hazard: CTGnnn`` markers, which ``tests/eval/run_truth.py``
verifies by running every case under torch.  This script lints every case with
``python -m contiglint --no-cache --format json`` and prints, per code:

  hazards   marked hazard lines for the code (in any case file)
  found     hazards whose exact line is reported with that code
  recall    found / hazards
  clean     cases in tests/eval/<code>/ without a marker for the code
  flagged   clean cases with at least one finding of that code (on any line)
  FP rate   flagged / clean
  fp lines  findings of the code on unmarked lines, in the code's own directory

then lists every miss and every false positive with file:line and contiglint's message.
Findings of a code in *other* codes' directories on unmarked lines are listed separately
(informational: those files were not necessarily written as clean cases for that code).

Pass a directory to score one set alone (`python benchmarks/eval_accuracy.py tests/eval/general`).

Both sets have been tuned on (tests/test_blind_eval.py says how): the model was improved
against the first set's misses, and against the general set's since its first measurement
(82/118 found); tests/eval/tuning/ was written for tuning. Their rates are tuning numbers; only
a set nobody has read while changing the model measures the product blind.

Usage: python benchmarks/eval_accuracy.py [PATH ...] [--codes CTG101,...] [--json OUT]
       [--lint-arg=--extend-select=CTG113 ...] [--no-opt-in] [--target-recall 0.95 --target-fp 0.03]

Opt-in rules (CTG104, CTG113) are evaluated too: unless a --select/--extend-select lint
argument is given (or --no-opt-in), every evaluated code is passed with --extend-select.
"""
from __future__ import annotations

import argparse
import importlib.util
import json
import os
import subprocess
import sys
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
EVAL_DIR = ROOT / "tests" / "eval"


def _load_truth_module():
    spec = importlib.util.spec_from_file_location("eval_run_truth", EVAL_DIR / "run_truth.py")
    mod = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = mod  # dataclasses need the module registered
    spec.loader.exec_module(mod)
    return mod


def lint(files, extra_args):
    cmd = [sys.executable, "-m", "contiglint", "--no-cache", "--format", "json", "--exit-zero",
           *extra_args, *map(str, files)]
    proc = subprocess.run(cmd, capture_output=True, text=True, cwd=str(ROOT))
    if proc.returncode not in (0, 1):
        sys.stderr.write(f"contiglint exited {proc.returncode}:\n{proc.stderr[-4000:]}\n")
    try:
        findings = json.loads(proc.stdout or "[]")
    except json.JSONDecodeError:
        sys.stderr.write(f"could not parse contiglint output:\n{proc.stdout[:2000]}\n{proc.stderr[-2000:]}\n")
        raise
    by_file = defaultdict(list)
    for f in findings:
        by_file[os.path.realpath(f["path"])].append(f)
    if proc.stderr.strip():
        sys.stderr.write(proc.stderr[-2000:] + ("\n" if not proc.stderr.endswith("\n") else ""))
    return by_file


def code_dir_of(case_path: Path):
    try:
        rel = case_path.resolve().relative_to(EVAL_DIR)
    except ValueError:
        return None
    # The case's own directory names its code: tests/eval/ctg101/x.py and
    # tests/eval/general/ctg101/x.py are both CTG101 cases.
    return rel.parts[-2].upper() if len(rel.parts) > 1 else None


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("paths", nargs="*", type=Path, default=[EVAL_DIR])
    ap.add_argument("--codes", help="comma-separated codes to report (default: every code marked or found)")
    ap.add_argument("--lint-arg", action="append", default=[], help="extra argument for contiglint")
    ap.add_argument("--json", type=Path, help="write the per-code numbers and misses/FPs here")
    ap.add_argument("--no-opt-in", action="store_true",
                    help="lint with the default rule selection only (by default the evaluated "
                         "codes are added with --extend-select, so opt-in rules such as CTG104 run)")
    ap.add_argument("--target-recall", type=float, default=0.95)
    ap.add_argument("--target-fp", type=float, default=0.03)
    args = ap.parse_args(argv)

    truth = _load_truth_module()
    cases = truth.discover(args.paths)
    if not cases:
        print("no cases found", file=sys.stderr)
        return 2
    codes = set()
    for c in cases:
        codes.update(c.markers)
        d = code_dir_of(c.path)
        if d and d.startswith("CTG"):
            codes.add(d)
    if args.codes:
        codes = {x.strip().upper() for x in args.codes.split(",") if x.strip()}

    lint_args = list(args.lint_arg)
    if codes and not args.no_opt_in and not any(
            a.startswith(("--select", "--extend-select")) for a in lint_args):
        # Every evaluated rule runs, opt-in ones too (CTG104, CTG113): the held-out set
        # scores each rule that has cases, whatever its default selection.
        lint_args.append("--extend-select=" + ",".join(sorted(codes)))
    by_file = lint([c.path for c in cases], lint_args)

    rows, misses, fps, offdir, report = [], [], [], [], {}
    for code in sorted(codes):
        hazards = found = clean = flagged = fp_lines = 0
        for c in cases:
            fnd = [f for f in by_file.get(os.path.realpath(c.path), []) if f["code"] == code]
            lines_found = defaultdict(list)
            for f in fnd:
                lines_found[f["line"]].append(f)
            marked = set(c.markers.get(code, []))
            own_dir = code_dir_of(c.path) == code
            for ln in sorted(marked):
                hazards += 1
                if ln in lines_found:
                    found += 1
                else:
                    other = [f"{f['code']}@{f['line']}" for f in by_file.get(os.path.realpath(c.path), [])]
                    misses.append((code, c.name, ln, _src_line(c.path, ln), other))
            unmarked = [f for f in fnd if f["line"] not in marked]
            if own_dir:
                if not marked:
                    clean += 1
                    if fnd:
                        flagged += 1
                fp_lines += len(unmarked)
                for f in unmarked:
                    fps.append((code, c.name, f["line"], f["message"], "clean case" if not marked else "hazard case, unmarked line"))
            else:
                for f in unmarked:
                    offdir.append((code, c.name, f["line"], f["message"]))
        recall = found / hazards if hazards else float("nan")
        fprate = flagged / clean if clean else float("nan")
        rows.append((code, hazards, found, recall, clean, flagged, fprate, fp_lines))
        report[code] = dict(hazards=hazards, found=found, recall=recall, clean_cases=clean,
                            clean_flagged=flagged, fp_rate=fprate, fp_lines=fp_lines)

    print(f"{len(cases)} case files under {', '.join(str(p) for p in args.paths)}\n")
    hdr = f"{'code':<8}{'hazards':>8}{'found':>7}{'recall':>9}{'clean':>7}{'flagged':>9}{'FP rate':>9}{'fp lines':>10}  verdict"
    print(hdr)
    print("-" * len(hdr))
    for code, h, fo, r, cl, fl, fr, fpl in rows:
        ok_r = h == 0 or r >= args.target_recall
        ok_f = cl == 0 or fr <= args.target_fp
        verdict = "PASS" if ok_r and ok_f else "FAIL"
        print(f"{code:<8}{h:>8}{fo:>7}{_pct(r):>9}{cl:>7}{fl:>9}{_pct(fr):>9}{fpl:>10}  {verdict}"
              f" (targets: recall >= {args.target_recall:.0%}, FP <= {args.target_fp:.0%})")

    print(f"\nMISSES ({len(misses)}):")
    for code, name, ln, src, other in misses:
        print(f"  {code} {name}:{ln}: {src.strip()}")
        print(f"      contiglint reported in this file: {', '.join(other) or 'nothing'}")
    print(f"\nFALSE POSITIVES ({len(fps)}):")
    for code, name, ln, msg, kind in fps:
        print(f"  {code} {name}:{ln} [{kind}]: {msg}")
    if offdir:
        print(f"\nFindings on unmarked lines in other codes' cases ({len(offdir)}, informational):")
        for code, name, ln, msg in offdir:
            print(f"  {code} {name}:{ln}: {msg}")
    if args.json:
        args.json.write_text(json.dumps(dict(per_code=report,
                                             misses=[dict(code=a, case=b, line=c) for a, b, c, _, _ in misses],
                                             false_positives=[dict(code=a, case=b, line=c, message=d, kind=e)
                                                              for a, b, c, d, e in fps]), indent=1))
    return 0


def _pct(x):
    return "n/a" if x != x else f"{x:.1%}"


def _src_line(path, ln):
    try:
        return Path(path).read_text().splitlines()[ln - 1]
    except Exception:
        return ""


if __name__ == "__main__":
    sys.exit(main())
