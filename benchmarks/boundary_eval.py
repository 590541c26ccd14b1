"""Recall on re-created real bugs at kernel, custom-op, extension and collective boundaries.

    python benchmarks/boundary_eval.py [SET_DIR] [--json]

SET_DIR (default tests/boundary_bugs) holds one directory per bug, `NN_slug/` with `buggy.py`
(the faulty line ends with `# bug-line`), `fixed.py` and PROVENANCE.md, and a shared `_support/`
package (Python stand-ins for native kernels and NCCL). For each bug it measures:

* static: `contiglint check` of the bug directory together with `_support/` (so contracts in
  the support modules are learned across files) reports a finding of the bug's expected code in
  buggy.py at the bug line, or with the bug line among its related locations;
* runtime: `contiglint run buggy.py` names the bug line in an entry of the expected code: as the
  entry's site, one of its `called from` frames, or where the tensor was made non-contiguous;
* quiet: the same two runs on fixed.py report nothing (static: no finding in fixed.py;
  runtime: no CTG1xx entry; CTG2xx are cost notes, counted separately).

A hit needs the bug's expected code: `boundary_expected.json` next to this script names, per
bug, the code a static finding at the bug line must carry (`static_code`) and the code of the
runtime entry that names it (`runtime_code`), with what was found when the set was last measured
(`static`, `runtime`). The expected code is what the boundary calls for: CTG107 at a collective
(or a wrapper that reaches one), CTG114 at a call into a callee whose contract needs a
contiguous tensor (a guard, a native stand-in, safetensors, a launch with another tensor's
strides), CTG106 at a strideless kernel launch on the line itself; at runtime, CTG106 where the
raw read is what is observed. The run prints each bug's row, the cases lost and gained against
that record by name, then the four rates; `--json` prints the rows, the comparison and the
summary.

The set has been tuned on: measured blind at 12/32 static hits, it reached 22/32 through
changes made while reading its misses, and its rates since are tuning numbers, not a blind
measurement.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_SET = ROOT / "tests" / "boundary_bugs"
EXPECTED = Path(__file__).resolve().parent / "boundary_expected.json"
sys.path.insert(0, str(ROOT))  # this checkout's contiglint, installed or not
from contiglint.rules import registry  # noqa: E402

# Every hazard rule, preview ones too (CTG114 and CTG106 are preview by their real-code
# precision): the set measures what the model sees at these boundaries, as the blind sets do.
# Rules opt-in by design (CTG113, a redundant `.contiguous()`) report no hazard.
EVERY_RULE = ",".join(entry.code for entry in registry.entries() if entry.status != "opt-in")


def bug_line(path: Path) -> int:
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if "# bug-line" in line:
            return number
    raise ValueError(f"{path}: no `# bug-line` marker")


def _env(set_dir: Path) -> dict:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT), str(set_dir)] +
                                        ([env["PYTHONPATH"]] if env.get("PYTHONPATH") else []))
    return env


def static_findings(bug: Path, program: str) -> list[dict]:
    """Findings in `program` when the bug directory (with only that program) and _support are
    linted together."""
    with tempfile.TemporaryDirectory() as folder:
        work = Path(folder) / bug.name
        work.mkdir()
        for item in bug.iterdir():
            if item.suffix == ".py" and item.name not in ("buggy.py", "fixed.py"):
                (work / item.name).write_text(item.read_text(encoding="utf-8"))
        (work / program).write_text((bug / program).read_text(encoding="utf-8"))
        support = bug.parent / "_support"
        paths = [str(work)] + ([str(support)] if support.is_dir() else [])
        result = subprocess.run(
            [sys.executable, "-m", "contiglint", "check", "--no-cache", "--format", "json",
             "--exit-zero", "--extend-select", EVERY_RULE, *paths], capture_output=True,
            text=True, env=_env(bug.parent), cwd=folder, timeout=300)
        data = json.loads(result.stdout or "[]")
        findings = data if isinstance(data, list) else data.get("findings", [])
        target = str((work / program).resolve())
        return [f for f in findings
                if os.path.abspath(os.path.join(folder, f["path"])) == target
                or os.path.abspath(f["path"]) == target]


def runtime_entries(bug: Path, program: str) -> list[dict]:
    with tempfile.TemporaryDirectory() as folder:
        out = Path(folder) / "report.json"
        subprocess.run([sys.executable, "-m", "contiglint.runtime", "--format", "json",
                        "--output", str(out), str(bug / program)], capture_output=True,
                       text=True, env=_env(bug.parent), cwd=str(bug), timeout=300)
        if not out.exists():
            return []
        return json.loads(out.read_text())["entries"]


def names_line(entry: dict, path: Path, line: int) -> bool:
    target = str(path.resolve())
    places = [(entry["file"], entry["line"])]
    places += [(c["file"], c["line"]) for c in entry.get("called_from", ())]
    places += [(o["file"], o["line"]) for o in entry.get("made_non_contiguous_at", ())]
    return any(os.path.abspath(f) == target and n == line for f, n in places)


def expected() -> dict[str, dict]:
    """{bug: {"static_code", "runtime_code", "static", "runtime"}}: the code each hit must
    carry, and whether it was found when the set was last measured."""
    return json.loads(EXPECTED.read_text(encoding="utf-8"))


def evaluate(bug: Path, codes: dict | None = None) -> dict:
    """One bug's outcome; `codes` is its entry in boundary_expected.json (a bug without one
    cannot hit)."""
    codes = codes if codes is not None else expected().get(bug.name, {})
    buggy = bug / "buggy.py"
    line = bug_line(buggy)
    findings = static_findings(bug, "buggy.py")
    at_line = sorted({f["code"] for f in findings if f["line"] == line
                      or any(r["line"] == line for r in f.get("related", ()))})
    entries = runtime_entries(bug, "buggy.py")
    named = sorted({e["code"] for e in entries if names_line(e, buggy, line)})
    fixed_findings = static_findings(bug, "fixed.py")
    fixed_entries = [e for e in runtime_entries(bug, "fixed.py") if e["code"] < "CTG200"]
    return {"bug": bug.name, "line": line,
            "static": codes.get("static_code") in at_line,
            "runtime": codes.get("runtime_code") in named,
            "static_codes_at_line": at_line, "runtime_codes_at_line": named,
            "static_codes": sorted({f["code"] for f in findings}),
            "runtime_codes": sorted({e["code"] for e in entries}),
            "fixed_static": [f"{f['code']}:{f['line']}" for f in fixed_findings],
            "fixed_runtime": [f"{e['code']}:{os.path.basename(e['file'])}:{e['line']}"
                              for e in fixed_entries]}


def compare(rows: list[dict], record: dict[str, dict]) -> dict[str, list[str]]:
    """The bugs lost and gained against the record, by name, per kind; a bug of the set that
    the record lacks, or the record names but the set lacks, is listed too."""
    names = {r["bug"] for r in rows}
    changes = {"unrecorded": sorted(names - set(record)),
               "missing from the set": sorted(set(record) - names)}
    for kind in ("static", "runtime"):
        changes[f"{kind} lost"] = [r["bug"] for r in rows
                                   if record.get(r["bug"], {}).get(kind) and not r[kind]]
        changes[f"{kind} gained"] = [r["bug"] for r in rows
                                     if r["bug"] in record and not record[r["bug"]].get(kind)
                                     and r[kind]]
    return changes


def evaluate_all(set_dir: Path, jobs: int) -> list[dict]:
    bugs = sorted(p for p in set_dir.iterdir()
                  if p.is_dir() and not p.name.startswith("_") and (p / "buggy.py").exists())
    record = expected()
    with ThreadPoolExecutor(max(1, jobs)) as pool:
        return list(pool.map(lambda bug: evaluate(bug, record.get(bug.name, {})), bugs))


def main(argv: list[str]) -> int:
    args = [a for a in argv if not a.startswith("--")]
    set_dir = Path(args[0]).resolve() if args else DEFAULT_SET
    rows = evaluate_all(set_dir, min(4, os.cpu_count() or 1))
    changes = compare(rows, expected())
    total = len(rows) or 1
    summary = {
        "bugs": len(rows),
        "static_recall": sum(r["static"] for r in rows) / total,
        "runtime_recall": sum(r["runtime"] for r in rows) / total,
        "fixed_quiet_static": sum(not r["fixed_static"] for r in rows) / total,
        "fixed_quiet_runtime": sum(not r["fixed_runtime"] for r in rows) / total,
    }
    if "--json" in argv:
        print(json.dumps({"summary": summary, "changes": changes, "rows": rows}, indent=2))
        return 0
    for r in rows:
        print(f"{r['bug']:<48} static={'Y' if r['static'] else '-'} "
              f"runtime={'Y' if r['runtime'] else '-'} at line={r['static_codes_at_line']}/"
              f"{r['runtime_codes_at_line']} codes={r['static_codes']}/{r['runtime_codes']} "
              f"fixed={r['fixed_static'] + r['fixed_runtime']}")
    print()
    for change, bugs in changes.items():
        print(f"{change}: {', '.join(bugs) if bugs else '-'}")
    print(f"\nbugs: {summary['bugs']}")
    for key in ("static_recall", "runtime_recall", "fixed_quiet_static", "fixed_quiet_runtime"):
        print(f"{key}: {summary[key]:.1%}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
