"""What a run gives back: one outcome per file, in discovery order, and the run's result."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable, Optional

from contiglint.engine import SourceError
from contiglint.findings import Finding


@dataclass
class FileOutcome:
    path: str
    findings: list[Finding] = field(default_factory=list)
    errors: list[SourceError] = field(default_factory=list)
    fixed: int = 0  # fixes applied (fix mode) or that would be applied (diff mode)
    fixes: list[Finding] = field(default_factory=list)  # the findings those fixes resolved
    diff: str = ""
    text: Optional[str] = None  # the fixed text, for stdin in fix mode
    # (absolute path, stat signature, text digest) of a file read in a cached check run, for
    # the cache's stat index (`StatIndex`), and the digest of the project's contracts its
    # result was linted with ("": none)
    seen: Optional[tuple[str, list[int], str]] = None
    contracts: str = ""


@dataclass
class RunResult:
    outcomes: list[FileOutcome] = field(default_factory=list)
    errors: list[SourceError] = field(default_factory=list)  # discovery problems

    @property
    def findings(self) -> list[Finding]:
        return [f for outcome in self.outcomes for f in outcome.findings]

    @property
    def all_errors(self) -> list[SourceError]:
        errors = self.errors + [e for outcome in self.outcomes for e in outcome.errors]
        return sorted(errors, key=lambda e: (e.path, e.line, e.column))

    @property
    def fixed(self) -> int:
        return sum(outcome.fixed for outcome in self.outcomes)

    @property
    def applied_fixes(self) -> list[Finding]:
        return [f for outcome in self.outcomes for f in outcome.fixes]

    @property
    def changed_files(self) -> int:
        return sum(1 for outcome in self.outcomes if outcome.fixed)


Progress = Callable[[int, int], None]  # (files done, files in all)
