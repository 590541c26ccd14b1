"""Suppression comments: `# noqa`, `# noqa: CTG101,CTG102` and `# contiglint: skip-file` (a
comment of its own line).

Read with `tokenize`, so a `# noqa` inside a string literal suppresses nothing. A finding is
reported at its sink (`.view` in a chain); a comment on the sink's line, on the last line of
the flagged expression, or on the last line of the statement holding it (after the closing
`)` of a call or expression that spans lines) suppresses it.
"""
from __future__ import annotations

import bisect
import io
import re
import tokenize
from typing import Iterable, Optional

from contiglint.findings import Edit, Finding, Position

_NOQA = re.compile(r"#\s*noqa(?::\s*(?P<codes>[A-Z]+[0-9]*(?:[\s,]+[A-Z]+[0-9]*)*))?", re.I)
# the whole comment, from its `#`: `# contiglint: skip-file`, then nothing, a space or a `#`
_SKIP_FILE = re.compile(r"#\s*contiglint\s*:\s*skip-file(?![^\s#])", re.I)

ALL = frozenset({"*"})


def comments(text: str) -> dict[int, str]:
    """Line number -> comment text. Falls back to a plain scan if tokenizing fails."""
    return _scan(text)[0]


def _scan(text: str) -> tuple[dict[int, str], list[int]]:
    """(line -> comment, the lines on which a statement (a logical line) ends)."""
    found: dict[int, str] = {}
    ends: list[int] = []
    try:
        for token in tokenize.generate_tokens(io.StringIO(text).readline):
            if token.type == tokenize.COMMENT:
                found[token.start[0]] = token.string
            elif token.type == tokenize.NEWLINE:
                ends.append(token.start[0])
    except (tokenize.TokenError, SyntaxError, IndentationError):
        for number, line in enumerate(text.splitlines(), 1):
            if "#" in line:
                found[number] = line[line.index("#"):]
    return found, ends


def codes_on(comment: str) -> Optional[frozenset[str]]:
    match = _NOQA.search(comment)
    if not match:
        return None
    if not match.group("codes"):
        return ALL
    return frozenset(code.upper() for code in re.split(r"[\s,]+", match.group("codes")) if code)


def skips_file(text: str) -> bool:
    """Whether a comment alone on its line is `# contiglint: skip-file`, as ruff reads `# ruff:
    noqa`: a directive after code, or quoted inside another comment, silences nothing."""
    return "skip-file" in text and any(_SKIP_FILE.match(comment)
                                       for comment in _own_line_comments(text))


def _own_line_comments(text: str) -> list[str]:
    """The comments with nothing but indentation before them on their line."""
    found = []
    try:
        for token in tokenize.generate_tokens(io.StringIO(text).readline):
            if token.type == tokenize.COMMENT and \
                    not _LINE_BREAK.split(token.line[:token.start[1]])[-1].strip():
                found.append(token.string)
    except (tokenize.TokenError, SyntaxError, IndentationError):
        return [line.strip() for line in _LINE_BREAK.split(text) if line.lstrip().startswith("#")]
    return found


_LINE_BREAK = re.compile(r"\r\n|\r|\n")


def unsuppressed(findings: Iterable[Finding], text: str) -> list[Finding]:
    findings = list(findings)
    if not findings or "noqa" not in text.lower():
        return findings
    found, ends = _scan(text)
    by_line = {line: codes for line, comment in found.items()
               if (codes := codes_on(comment)) is not None}
    kept = []
    for finding in findings:
        lines = {finding.line, finding.end_line}
        index = bisect.bisect_left(ends, finding.end_line)
        if index < len(ends):
            lines.add(ends[index])  # the statement's last line
        if any(_covers(by_line.get(line), finding.code) for line in lines):
            continue
        kept.append(finding)
    return kept


def _covers(codes: Optional[frozenset[str]], code: str) -> bool:
    if codes is None:
        return False
    return codes is ALL or any(code.startswith(prefix) for prefix in codes)


def add_noqa(text: str, findings: Iterable[Finding]) -> tuple[str, int]:
    """`--add-noqa`: put `# noqa: CODE` on the line of each finding (its sink line, or its last
    line when a comment cannot end the first: inside a multi-line string, after a backslash).
    Codes join an existing `# noqa: ...`; a bare `# noqa` is left alone; another comment keeps
    its text, the directive follows it. Returns the new text and how many lines changed. Run
    again it adds nothing: the findings are suppressed by then."""
    import ast

    lines = text.splitlines(keepends=True)
    closed = _lines_a_comment_can_end(text, len(lines))
    wanted: dict[int, set[str]] = {}
    for finding in findings:
        line = next((n for n in (finding.line, finding.end_line) if n in closed), None)
        if line is not None:
            wanted.setdefault(line, set()).add(finding.code)
    existing = comments(text)
    changed = 0
    for number, codes in sorted(wanted.items()):
        content = lines[number - 1]
        body = content.rstrip("\r\n")
        newline = content[len(body):]
        comment = existing.get(number, "")
        present = codes_on(comment) if comment else None
        if present is ALL or (present is not None and codes <= present):
            continue
        if present is not None:
            match = _NOQA.search(body)
            merged = ", ".join(sorted(present | codes))
            body = body[:match.start()] + f"# noqa: {merged}" + body[match.end():]
        else:
            body = body.rstrip() + f"  # noqa: {', '.join(sorted(codes))}"
        lines[number - 1] = body + newline
        changed += 1
    if not changed:
        return text, 0
    new_text = "".join(lines)
    try:
        ast.parse(new_text)
    except (SyntaxError, ValueError):  # pragma: no cover - placement above keeps it parsing
        return text, 0
    return new_text, changed


def _lines_a_comment_can_end(text: str, count: int) -> set[int]:
    """Line numbers whose end is code, not the inside of a string or a `\\` continuation."""
    inside: set[int] = set()
    try:
        for token in tokenize.generate_tokens(io.StringIO(text).readline):
            if token.start[0] != token.end[0] and token.type in _STRING_TYPES:
                inside.update(range(token.start[0], token.end[0]))
    except (tokenize.TokenError, SyntaxError, IndentationError):
        return set()
    lines = text.splitlines()
    return {number for number in range(1, count + 1) if number not in inside
            and not lines[number - 1].rstrip().endswith("\\")}


_STRING_TYPES = {tokenize.STRING} | {getattr(tokenize, name) for name in
                                     ("FSTRING_MIDDLE", "FSTRING_START", "FSTRING_END")
                                     if hasattr(tokenize, name)}


def suppression_edit(text: str, finding: Finding) -> Optional[Edit]:
    """The edit that `--add-noqa` would make for `finding` alone (an editor's "add noqa"
    action): the whole changed line replaced, or None when nothing needs adding."""
    new_text, changed = add_noqa(text, [finding])
    if not changed:
        return None
    old_lines, new_lines = text.splitlines(), new_text.splitlines()
    number = next(n for n, (old, new) in enumerate(zip(old_lines, new_lines), 1) if old != new)
    return Edit(Position(number, 1), Position(number, len(old_lines[number - 1]) + 1),
                new_lines[number - 1])
