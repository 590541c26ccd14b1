"""The fixture format shared by the static tests and the verifier (see docs/design.md).

A fixture is a runnable module under fixtures/<CODE>/; a line that must be flagged ends with a
comment `# expect: CTG101` (several codes: `# expect: CTG101, CTG104`); every other line must not
be flagged. `<name>.fixed.py` beside it is what fixing (safe and unsafe fixes) must produce.
"""
from __future__ import annotations

from pathlib import Path

from contiglint.verify.markers import expectations, fixed_path  # noqa: F401 - one grammar

ROOT = Path(__file__).resolve().parent.parent / "fixtures"


def fixture_files() -> list[Path]:
    return sorted(p for p in ROOT.rglob("*.py") if not p.name.endswith(".fixed.py"))


