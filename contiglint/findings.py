"""What a rule reports: findings, the fixes that resolve them, and how fixes are applied.

Positions are 1-based lines and 1-based *character* columns everywhere (CLI, JSON, flake8), so a
column means the same thing to every front end regardless of non-ASCII text on the line.
"""
from __future__ import annotations

import difflib
import importlib.util
import re
from dataclasses import dataclass, field
from functools import lru_cache
from itertools import accumulate
from typing import TYPE_CHECKING, Literal, Optional, Sequence

if TYPE_CHECKING:
    from contiglint.layout.model.witness import Witness

Safety = Literal["safe", "unsafe"]


@dataclass(frozen=True, order=True)
class Position:
    line: int
    column: int


@dataclass(frozen=True)
class Edit:
    """Replace the text between two positions (end exclusive) with `content`."""

    start: Position
    end: Position
    content: str

    def as_json(self) -> dict:
        return {
            "line": self.start.line,
            "column": self.start.column,
            "end_line": self.end.line,
            "end_column": self.end.column,
            "content": self.content,
        }


@lru_cache(maxsize=None)
def rewrites_available() -> bool:
    """Whether LibCST (the `fix` extra) is installed, found without importing it. Without it,
    findings whose fix adds statements are reported without a fix."""
    try:
        return importlib.util.find_spec("libcst") is not None
    except (ImportError, ValueError):
        return False


@dataclass(frozen=True)
class Rewrite:
    """A statement-level change, made by LibCST (`contiglint.rewrite`) when its edits are first
    needed: `before` and `after` are statements to put around the statement starting at
    `anchor`, `replace` the expression spans inside it and their new text. Linting only
    records it, so a run that never asks for edits never imports LibCST."""

    text: str = field(repr=False, compare=False)
    anchor: Position
    before: tuple[str, ...] = ()
    after: tuple[str, ...] = ()
    replace: tuple[tuple[Position, Position, str], ...] = ()
    lock: Optional[Position] = None  # an empty edit here: one such fix per scope and round

    def as_json(self) -> dict:
        """The plan without the text (the cache keeps it next to the text's hash)."""
        return {"anchor": [self.anchor.line, self.anchor.column], "before": list(self.before),
                "after": list(self.after),
                "replace": [[s.line, s.column, e.line, e.column, t] for s, e, t in self.replace],
                "lock": [self.lock.line, self.lock.column] if self.lock else None}

    @staticmethod
    def from_json(data: dict, text: str) -> "Rewrite":
        lock = data["lock"]
        return Rewrite(text, Position(*data["anchor"]), tuple(data["before"]),
                       tuple(data["after"]),
                       tuple((Position(a, b), Position(c, d), t) for a, b, c, d, t in
                             data["replace"]),
                       Position(*lock) if lock else None)


class Fix:
    """A set of edits applied together. `safe` fixes keep behaviour; `unsafe` ones may not.

    The edits are given, or computed from a `Rewrite` on first use (then kept). A fix whose
    edits cannot be made has none, and `problem` says why (the finding stays, without a fix);
    without LibCST a rewrite makes no edits (`offered` is False), with no problem."""

    __slots__ = ("safety", "description", "rewrite", "_edits", "problem")

    def __init__(self, safety: Safety, edits: Optional[tuple[Edit, ...]] = None,
                 description: str = "", rewrite: Optional[Rewrite] = None,
                 problem: Optional[str] = None) -> None:
        self.safety, self.description, self.rewrite = safety, description, rewrite
        self._edits = tuple(edits) if edits is not None else None
        self.problem = problem

    @property
    def edits(self) -> tuple[Edit, ...]:
        if self._edits is None:
            self._edits = ()
            if self.rewrite is not None and rewrites_available():
                from contiglint.rewrite import rewrite_edits  # LibCST: only when needed

                try:
                    self._edits = rewrite_edits(self.rewrite)
                except Exception as error:  # noqa: BLE001 - the fix is left out, not the report
                    message = str(error).strip().splitlines()
                    self.problem = f"its rewrite could not be made ({type(error).__name__}" + \
                        (f": {message[0]}" if message else "") + ")"
        return self._edits

    @property
    def offered(self) -> bool:
        """Whether the fix can be offered: it has edits, or a rewrite not made yet that LibCST
        is there to make (whether it can is known once made)."""
        if self._edits is None:
            return self.rewrite is None or rewrites_available()
        return bool(self._edits)

    def _key(self) -> tuple:
        return (self.safety, self.edits, self.description)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Fix) and self._key() == other._key()

    def __hash__(self) -> int:
        return hash(self._key())

    def __repr__(self) -> str:
        edits = "<rewrite>" if self._edits is None else self._edits
        return f"Fix({self.safety!r}, {edits}, {self.description!r})"

    def as_json(self, lazy: bool = False) -> dict:
        """The documented form (`edits`); `lazy` keeps a rewrite not yet made as its plan."""
        if lazy and self._edits is None and self.rewrite is not None:
            return {"safety": self.safety, "description": self.description,
                    "rewrite": self.rewrite.as_json()}
        data = {
            "safety": self.safety,
            "description": self.description,
            "edits": [edit.as_json() for edit in self.edits],
        }
        if lazy and self.problem:
            data["problem"] = self.problem
        return data


@dataclass(frozen=True)
class Related:
    """Another place that explains a finding: where the layout broke, the call that passed it."""

    line: int
    column: int
    message: str

    def as_json(self) -> dict:
        return {"line": self.line, "column": self.column, "message": self.message}


@dataclass(frozen=True)
class Finding:
    path: str
    line: int
    column: int
    end_line: int
    end_column: int
    code: str
    message: str
    fix: Optional[Fix] = None
    related: tuple[Related, ...] = field(default=())
    # concrete sizes under which torch fails (layout/model/witness.py), where the rule has one
    witness: Optional["Witness"] = field(default=None, compare=False)

    @property
    def sort_key(self) -> tuple:
        return (self.path, self.line, self.column, self.code)

    def as_json(self, lazy: bool = False) -> dict:
        return {
            "path": self.path,
            "line": self.line,
            "column": self.column,
            "end_line": self.end_line,
            "end_column": self.end_column,
            "code": self.code,
            "message": self.message,
            "fix": self.fix.as_json(lazy) if self.fix and (lazy or self.fix.edits) else None,
            "related": [r.as_json() for r in self.related],
            "witness": self.witness.as_json() if self.witness else None,
        }


_NEWLINE = re.compile(r"\r\n|\r|\n")


def line_starts(text: str) -> list[int]:
    """Offsets of the first character of every line, with Python's idea of a line end
    (LF, CRLF or a lone CR), so positions agree with the parser's line numbers. Without a
    CR, each line starts one past the end of the one before (a third of the regex's cost)."""
    if "\r" in text:
        return [0] + [match.end() for match in _NEWLINE.finditer(text)]
    return list(accumulate(map(_ONE_MORE, map(len, text.split("\n")[:-1])), initial=0))


_ONE_MORE = (1).__add__


def offset(starts: Sequence[int], position: Position) -> int:
    return starts[position.line - 1] + position.column - 1


def apply_fixes(text: str, fixes: Sequence[Fix],
                accepted_fixes: Optional[list[Fix]] = None) -> tuple[str, int]:
    """Apply every fix whose edits do not overlap an already accepted fix.

    Returns the new text and how many fixes were applied (and appends those fixes to
    `accepted_fixes` when given). Overlapping fixes are left for the next round (the engine
    re-lints and fixes again), as ruff does.
    """
    starts = line_starts(text)
    accepted: list[tuple[int, int, str]] = []
    taken: list[tuple[int, int]] = []
    applied = 0
    for fix in fixes:
        spans = [(offset(starts, e.start), offset(starts, e.end), e.content) for e in fix.edits]
        if not spans:
            continue  # a rewrite LibCST could not make (syntax newer than it knows)
        if any(not (end <= lo or start >= hi) or (start == end == lo == hi)
               for start, end, _ in spans for lo, hi in taken):
            continue
        accepted.extend(spans)
        taken.extend((start, end) for start, end, _ in spans)
        applied += 1
        if accepted_fixes is not None:
            accepted_fixes.append(fix)
    for start, end, content in sorted(accepted, key=lambda span: (span[0], span[1]), reverse=True):
        text = text[:start] + content + text[end:]
    return text, applied


def unified_diff(path: str, before: str, after: str) -> str:
    lines = []
    for line in difflib.unified_diff(before.splitlines(keepends=True),
                                     after.splitlines(keepends=True),
                                     fromfile=f"a/{path}", tofile=f"b/{path}"):
        lines.append(line if line.endswith(("\n", "\r")) else
                     line + "\n\\ No newline at end of file\n")
    return "".join(lines)
