"""Shared by the held-out reproduction scripts: the cached corpus on sys.path, one-line outcomes.

The scripts run the flagged code under torch: imported from the pinned package where it imports
with torch alone (plus the small pure dependencies in `<cache>/deps`, installed there with
`pip install --no-deps --target <cache>/deps lightning-utilities kornia-rs`), else copied as a
short excerpt (cited by package/path) with realistic inputs.
"""
from __future__ import annotations

import json
import os
import sys
import traceback
import warnings
from pathlib import Path

HERE = Path(__file__).resolve().parent
PINNED = json.loads((HERE.parent / "heldout.json").read_text())["packages"]
env = os.environ.get("CONTIGLINT_HELDOUT_DIR")
CACHE = Path(env).expanduser() if env else Path.home() / ".cache" / "contiglint" / "heldout"


def use_packages(*names: str) -> None:
    """Put the pinned trees of `names` (and the deps folder) first on sys.path."""
    for name in names:
        tree = CACHE / "trees" / f"{name}-{PINNED[name]}"
        if not tree.is_dir():
            sys.exit(f"{tree} missing: run python benchmarks/realcode.py --corpus heldout")
        sys.path.insert(0, str(tree))
    if (CACHE / "deps").is_dir():
        sys.path.insert(0, str(CACHE / "deps"))


def outcome(label: str, fn) -> str:
    """Run `fn()`; print and return 'raises: ...', or 'ok: <result>' (with any warning)."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            text = f"ok: {fn()}"
        except Exception as error:  # the point: does the flagged path raise?
            text = f"raises: {type(error).__name__}: {str(error).splitlines()[0][:120]}"
            if "-v" in sys.argv:
                traceback.print_exc()
    layout = [str(w.message).splitlines()[0][:90] for w in caught
              if "expanded" in str(w.message) or "contiguous" in str(w.message)]
    if layout:
        text += f" [warning: {layout[0]}]"
    print(f"{label}: {text}")
    return text
