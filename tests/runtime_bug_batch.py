"""Run several bug scripts under `contiglint run`, one after another in this one process.

    python tests/runtime_bug_batch.py OUTDIR script.py [script.py ...]

Each script gets exactly what `python -m contiglint run --format json --output OUTDIR/<stem>.json
script.py` gives it (the same `main()`, a fresh watcher, the script as `__main__`), and its exit
status goes to OUTDIR/<stem>.status. Batching only saves the torch import per script (seconds
each on a loaded machine); tests/test_runtime_bugs.py still runs a few scripts as separate
`python -m contiglint run` processes to cover the real entry point.
"""
from __future__ import annotations

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from contiglint.runtime.cli import main  # noqa: E402


def run_all(out_dir: str, scripts: list[str]) -> None:
    for script in scripts:
        stem = os.path.splitext(os.path.basename(script))[0]
        report = os.path.join(out_dir, f"{stem}.json")
        print(f"=== {stem}", file=sys.stderr, flush=True)
        status = main(["--format", "json", "--output", report, script])
        with open(os.path.join(out_dir, f"{stem}.status"), "w", encoding="utf-8") as stream:
            stream.write(str(status))


if __name__ == "__main__":
    run_all(sys.argv[1], sys.argv[2:])
