"""Recall on re-created real bugs at kernel, custom-op, extension and collective boundaries.

    python benchmarks/boundary_eval.py [SET_DIR] [--json]

SET_DIR (default tests/boundary_bugs) holds one directory per bug, `NN_slug/` with `buggy.py`
(the faulty line ends with `# bug-line`), `fixed.py` and PROVENANCE.md, and a shared `_support/`
package (Python stand-ins for native kernels and NCCL). For each bug it measures:

* static: `contiglint check` of the bug directory together with `_support/` (so contracts in
  the support modules are learned across files) reports a finding in buggy.py at the bug line,
  or with the bug line among its related locations;
* runtime: `contiglint run buggy.py` names the bug line: as an entry's site, one of its
  `called from` frames, or where the tensor was made non-contiguous;
* quiet: the same two runs on fixed.py report nothing (static: no finding in fixed.py;
  runtime: no CTG1xx entry; CTG2xx are cost notes, counted separately).

Prints per-bug rows, then the four rates.
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


def evaluate(bug: Path) -> dict:
    buggy = bug / "buggy.py"
    line = bug_line(buggy)
    findings = static_findings(bug, "buggy.py")
    static = any(f["line"] == line or any(r["line"] == line for r in f.get("related", ()))
                 for f in findings)
    entries = runtime_entries(bug, "buggy.py")
    runtime = any(names_line(e, buggy, line) for e in entries)
    fixed_findings = static_findings(bug, "fixed.py")
    fixed_entries = [e for e in runtime_entries(bug, "fixed.py") if e["code"] < "CTG200"]
    return {"bug": bug.name, "line": line, "static": static, "runtime": runtime,
            "static_codes": sorted({f["code"] for f in findings}),
            "runtime_codes": sorted({e["code"] for e in entries}),
            "fixed_static": [f"{f['code']}:{f['line']}" for f in fixed_findings],
            "fixed_runtime": [f"{e['code']}:{os.path.basename(e['file'])}:{e['line']}"
                              for e in fixed_entries]}


def main(argv: list[str]) -> int:
    args = [a for a in argv if not a.startswith("--")]
    set_dir = Path(args[0]).resolve() if args else DEFAULT_SET
    bugs = sorted(p for p in set_dir.iterdir()
                  if p.is_dir() and not p.name.startswith("_") and (p / "buggy.py").exists())
    with ThreadPoolExecutor(max(1, min(4, os.cpu_count() or 1))) as pool:
        rows = list(pool.map(evaluate, bugs))
    total = len(rows) or 1
    summary = {
        "bugs": len(rows),
        "static_recall": sum(r["static"] for r in rows) / total,
        "runtime_recall": sum(r["runtime"] for r in rows) / total,
        "fixed_quiet_static": sum(not r["fixed_static"] for r in rows) / total,
        "fixed_quiet_runtime": sum(not r["fixed_runtime"] for r in rows) / total,
    }
    if "--json" in argv:
        print(json.dumps({"summary": summary, "rows": rows}, indent=2))
        return 0
    for r in rows:
        print(f"{r['bug']:<48} static={'Y' if r['static'] else '-'} "
              f"runtime={'Y' if r['runtime'] else '-'} codes={r['static_codes']}/"
              f"{r['runtime_codes']} fixed={r['fixed_static'] + r['fixed_runtime']}")
    print(f"\nbugs: {summary['bugs']}")
    for key in ("static_recall", "runtime_recall", "fixed_quiet_static", "fixed_quiet_runtime"):
        print(f"{key}: {summary[key]:.1%}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
