"""Run every <NN>_<slug>/buggy.py (must fail: exception / non-zero exit, incl.
AssertionError("wrong values")) and fixed.py (must exit 0), each in its own
subprocess with a timeout; print a table and a summary."""
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parent
TIMEOUT = 120


def last_error_line(text):
    lines = [l for l in text.strip().splitlines() if l.strip()]
    for l in reversed(lines):
        if "Error" in l or "Exception" in l:
            return l.replace("[rank0]: ", "").strip()[:90]
    return (lines[-1].strip()[:90] if lines else "")


def run(path):
    t0 = time.time()
    try:
        p = subprocess.run([sys.executable, path.name], cwd=path.parent, capture_output=True,
                           text=True, timeout=TIMEOUT)
        return p.returncode, p.stdout + p.stderr, time.time() - t0
    except subprocess.TimeoutExpired as e:
        return "timeout", (e.stdout or "") if isinstance(e.stdout, str) else "", time.time() - t0


def check(bug_dir):
    b_rc, b_out, b_t = run(bug_dir / "buggy.py")
    f_rc, f_out, f_t = run(bug_dir / "fixed.py")
    buggy_ok = b_rc not in (0, "timeout")
    fixed_ok = f_rc == 0
    return bug_dir.name, buggy_ok, fixed_ok, b_rc, f_rc, last_error_line(b_out), \
        (last_error_line(f_out) if not fixed_ok else ""), b_t + f_t


def main():
    only = set(sys.argv[1:])
    bugs = sorted(d for d in ROOT.iterdir() if d.is_dir() and d.name[:2].isdigit()
                  and (not only or d.name[:2] in only or d.name in only))
    with ThreadPoolExecutor(max_workers=2) as ex:
        rows = list(ex.map(check, bugs))
    print(f"{'bug':48} {'buggy':6} {'fixed':6}  buggy failure")
    print("-" * 130)
    for name, bok, fok, brc, frc, berr, ferr, t in rows:
        print(f"{name:48} {'FAIL' if bok else 'pass!':6} {'ok' if fok else 'FAIL!':6}  {berr}"
              + (f"   || fixed: rc={frc} {ferr}" if not fok else ""))
    good = sum(1 for r in rows if r[1] and r[2])
    print("-" * 130)
    print(f"summary: {good}/{len(rows)} bugs behave as expected "
          f"(buggy fails, fixed runs clean); "
          f"buggy-not-failing={sum(1 for r in rows if not r[1])}, "
          f"fixed-not-clean={sum(1 for r in rows if not r[2])}")
    sys.exit(0 if good == len(rows) else 1)


if __name__ == "__main__":
    main()
