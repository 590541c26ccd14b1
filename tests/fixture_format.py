"""The fixture format shared by the static tests and the verifier (see DESIGN.md).

A fixture is a runnable module under fixtures/<CODE>/; a line that must be flagged ends with a
comment `# expect: CTG101` (several codes: `# expect: CTG101, CTG104`); every other line must not
be flagged. `<name>.fixed.py` beside it is what fixing (safe and unsafe fixes) must produce.
"""
from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent / "fixtures"
EXPECT = re.compile(r"#.*?\bexpect:\s*(?P<codes>CTG\d+(?:\s*,\s*CTG\d+)*)")


def fixture_files() -> list[Path]:
    return sorted(p for p in ROOT.rglob("*.py") if not p.name.endswith(".fixed.py"))


def expectations(text: str) -> set[tuple[int, str]]:
    found = set()
    for number, line in enumerate(text.splitlines(), 1):
        match = EXPECT.search(line)
        if match:
            found.update((number, code.strip()) for code in match.group("codes").split(","))
    return found


def fixed_path(path: Path) -> Path:
    return path.with_name(path.stem + ".fixed.py")
