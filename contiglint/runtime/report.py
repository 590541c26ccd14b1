"""The watch report: hazards aggregated per site, ordered by what they cost.

One entry per (code, file, line, op, shape, strides): a training loop that copies the same
tensor a million times is one line with a count, not a million lines. Entries are sorted by
file and line, like the static linter's findings; each shows its count and the bytes copied.
`# noqa` / `# noqa: CTG201` on the reported line suppresses an entry, as for the static linter.
"""
from __future__ import annotations

import json
import linecache
import os
import threading
from dataclasses import dataclass, field
from typing import Optional

from contiglint.noqa import codes_on, comments
from contiglint.rules import severity
from contiglint.runtime.codes import EXPLANATIONS, title
from contiglint.runtime.hazards import Hazard
from contiglint.runtime.sampling import describe as describe_sampling
from contiglint.runtime.static_compare import StaticView
from contiglint.verify.frames import Site

_MAX_ORIGINS = 3


@dataclass
class Entry:
    code: str
    file: str
    line: int
    function: str
    op: str
    shape: Optional[tuple[int, ...]]
    strides: Optional[tuple[int, ...]]
    device: Optional[str]
    dtype: Optional[str]
    count: int = 0
    bytes_copied: int = 0
    origins: list[Site] = field(default_factory=list)
    note: str = ""
    chain: tuple[Site, ...] = ()  # the user callers of the first occurrence, innermost first

    @property
    def title(self) -> str:
        return title(self.code)

    def as_json(self) -> dict:
        return {
            "code": self.code, "severity": severity(self.code), "title": self.title,
            "file": self.file, "line": self.line,
            "function": self.function, "op": self.op,
            "shape": list(self.shape) if self.shape is not None else None,
            "strides": list(self.strides) if self.strides is not None else None,
            "device": self.device, "dtype": self.dtype, "count": self.count,
            "bytes_copied": self.bytes_copied,
            "made_non_contiguous_at": [{"file": o.file, "line": o.line} for o in self.origins],
            "called_from": [{"file": c.file, "line": c.line, "function": c.function}
                            for c in self.chain],
            "note": self.note,
        }


class Report:
    """Accumulates hazards (thread-safe) and renders them as text or JSON."""

    def __init__(self) -> None:
        self._entries: dict[tuple, Entry] = {}
        self._lock = threading.Lock()
        self._noqa: dict[str, dict[int, Optional[frozenset]]] = {}
        self.suppressed = 0
        self.script_error: Optional[str] = None
        self.sampling: Optional[dict] = None  # what the watch looked at (sampling.py)

    def add(self, hazard: Hazard) -> None:
        layout = hazard.layout
        key = (hazard.code, hazard.site.file, hazard.site.line, hazard.op,
               layout.shape if layout else None, layout.strides if layout else None)
        with self._lock:
            entry = self._entries.get(key)
            if entry is None:
                if self._silenced(hazard.site, hazard.code):
                    self.suppressed += 1
                    return
                entry = self._entries[key] = Entry(
                    hazard.code, hazard.site.file, hazard.site.line, hazard.site.function,
                    hazard.op, layout.shape if layout else None,
                    layout.strides if layout else None, layout.device if layout else None,
                    layout.dtype if layout else None, note=hazard.note[:300],
                    chain=hazard.chain)
            entry.count += 1
            entry.bytes_copied += hazard.bytes_copied
            if hazard.origin is not None and hazard.origin not in entry.origins \
                    and len(entry.origins) < _MAX_ORIGINS and hazard.origin != hazard.site:
                entry.origins.append(hazard.origin)

    def merge(self, other: dict) -> None:
        """Add another report's entries, given as `as_json()` data (a child process's)."""
        for data in other.get("entries", ()):
            shape = tuple(data["shape"]) if data.get("shape") is not None else None
            strides = tuple(data["strides"]) if data.get("strides") is not None else None
            key = (data["code"], data["file"], data["line"], data["op"], shape, strides)
            with self._lock:
                entry = self._entries.get(key)
                if entry is None:
                    entry = self._entries[key] = Entry(
                        data["code"], data["file"], data["line"], data.get("function", ""),
                        data["op"], shape, strides, data.get("device"), data.get("dtype"),
                        note=data.get("note", ""), chain=tuple(
                            Site(c["file"], c["line"], c.get("function", ""))
                            for c in data.get("called_from", ())))
                entry.count += data.get("count", 1)
                entry.bytes_copied += data.get("bytes_copied", 0)
                for origin in data.get("made_non_contiguous_at", ()):
                    site = Site(origin["file"], origin["line"], "")
                    if site not in entry.origins and len(entry.origins) < _MAX_ORIGINS:
                        entry.origins.append(site)
        with self._lock:
            self.suppressed += other.get("summary", {}).get("suppressed", 0)

    @property
    def entries(self) -> list[Entry]:
        with self._lock:
            entries = list(self._entries.values())
        return sorted(entries, key=lambda e: (e.file, e.line, e.code, e.op, -e.bytes_copied))

    def __len__(self) -> int:
        return len(self._entries)

    def __bool__(self) -> bool:
        return True  # `with watch() as report:` must stay truthy even when empty

    def _silenced(self, site: Site, code: str) -> bool:
        by_line = self._noqa.get(site.file)
        if by_line is None:
            by_line = self._noqa[site.file] = _noqa_lines(site.file)
        codes = by_line.get(site.line)
        return codes is not None and (codes == frozenset({"*"}) or
                                      any(code.startswith(prefix) for prefix in codes))

    # -- rendering ---------------------------------------------------------------------------
    def as_json(self, explain: bool = False) -> dict:
        """`explain`: each entry also holds what static analysis inferred there
        (`static_analysis`: its layout and the claims torch refuted)."""
        entries = self.entries
        static = StaticView() if explain else None
        return {
            "version": 1, "tool": "contiglint run",
            "summary": {"entries": len(entries), "occurrences": sum(e.count for e in entries),
                        "bytes_copied": sum(e.bytes_copied for e in entries),
                        "suppressed": self.suppressed},
            "entries": [{**e.as_json(), **({"static_analysis": static.compare(
                e.file, e.line, e.op, e.shape, e.strides)} if explain else {})}
                for e in entries],
            "script_error": self.script_error,
            "sampling": self.sampling,
        }

    def to_json(self, explain: bool = False) -> str:
        return json.dumps(self.as_json(explain), indent=2)

    def to_text(self, explain: bool = False) -> str:
        entries = self.entries
        sampled = self.sampling is not None and self.sampling.get("sampling_from_step") \
            is not None
        note = [f"  ({describe_sampling(self.sampling)})"] if sampled else []
        if not entries:
            return "\n".join(["contiglint run: no layout hazards observed in user code."]
                             + note)
        total = sum(e.bytes_copied for e in entries)
        static = StaticView() if explain else None
        lines = [f"contiglint run: {len(entries)} layout hazard site(s), "
                 f"{sum(e.count for e in entries)} occurrence(s), {_size(total)} copied",
                 *note]
        for entry in entries:
            cost = f", {_size(entry.bytes_copied)} copied" if entry.bytes_copied else ""
            layout = f" shape {entry.shape} strides {entry.strides}" if entry.shape is not None \
                else ""
            lines.append(f"{_shown(entry.file)}:{entry.line}: {entry.code} "
                         f"{severity(entry.code)}: {entry.title}: {entry.op}{layout} "
                         f"x{entry.count}{cost}")
            for caller in entry.chain:
                lines.append(f"    called from {_shown(caller.file)}:{caller.line} "
                             f"({caller.function})")
            for origin in entry.origins:
                lines.append(f"    made non-contiguous at {_shown(origin.file)}:{origin.line}")
            if entry.note:
                lines.append(f"    {entry.note.splitlines()[0]}")
            if explain:
                lines.append(f"    why: {EXPLANATIONS.get(entry.code, '')}")
                lines.extend("    " + line for line in static.lines(
                    entry.file, entry.line, entry.op, entry.shape, entry.strides))
        return "\n".join(lines)

    def __str__(self) -> str:
        return self.to_text()


def _noqa_lines(path: str) -> dict[int, Optional[frozenset]]:
    text = "".join(linecache.getlines(path))
    if "noqa" not in text.lower():
        return {}
    return {line: codes for line, comment in comments(text).items()
            if (codes := codes_on(comment)) is not None}


def _shown(path: str) -> str:
    try:
        relative = os.path.relpath(path)
    except ValueError:
        return path
    return path if relative.startswith("..") else relative


def _size(count: int) -> str:
    for unit in ("B", "KiB", "MiB", "GiB"):
        if count < 1024 or unit == "GiB":
            return f"{count:.0f} {unit}" if unit == "B" else f"{count:.1f} {unit}"
        count /= 1024
    return f"{count} B"
