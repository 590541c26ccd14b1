"""The `# expect: CTGNNN` markers of a fixture, read without importing torch.

Same grammar as tests/fixture_format.py (the static fixture test): a line that must be flagged
ends with `# expect: CTG101` or `# expect: CTG101, CTG104`. The verifier reads them only to
report lines where the markers and the engine disagree; its comparison uses the engine.
"""
from __future__ import annotations

import re
from pathlib import Path
from typing import Iterable, Iterator

EXPECT = re.compile(r"#.*?\bexpect:\s*(?P<codes>CTG\d+(?:\s*,\s*CTG\d+)*)")


def expectations(text: str) -> set[tuple[int, str]]:
    found = set()
    for number, line in enumerate(text.splitlines(), 1):
        match = EXPECT.search(line)
        if match:
            found.update((number, code.strip()) for code in match.group("codes").split(","))
    return found


def fixed_path(path: Path) -> Path:
    return path.with_name(path.stem + ".fixed.py")


def is_fixed_program(path: Path) -> bool:
    return path.name.endswith(".fixed.py")


def fixture_programs(paths: Iterable[str]) -> Iterator[Path]:
    """The fixture programs under `paths` (files or directories), sorted, goldens excluded."""
    seen: set[Path] = set()
    for name in paths:
        path = Path(name)
        found = sorted(path.rglob("*.py")) if path.is_dir() else [path]
        for candidate in found:
            candidate = candidate.resolve()
            if candidate in seen or is_fixed_program(candidate) or candidate.name == "__init__.py":
                continue
            seen.add(candidate)
            yield candidate
