"""Suppression comments: `# noqa`, `# noqa: CTG101,CTG102` and `# contiglint: skip-file`.

Read with `tokenize`, so a `# noqa` inside a string literal suppresses nothing. A finding that
spans several lines is suppressed by a comment on its first or last line, like flake8 does for
multi-line strings.
"""
from __future__ import annotations

import io
import re
import tokenize
from functools import lru_cache
from typing import Iterable, Optional

from contiglint.findings import Edit, Finding, Position, line_starts

_NOQA = re.compile(r"#\s*noqa(?::\s*(?P<codes>[A-Z]+[0-9]*(?:[\s,]+[A-Z]+[0-9]*)*))?", re.I)
_SKIP_FILE = re.compile(r"#\s*contiglint\s*:\s*skip-file\b", re.I)

ALL = frozenset({"*"})


def comments(text: str) -> dict[int, str]:
    """Line number -> comment text. Falls back to a plain scan if tokenizing fails."""
    found: dict[int, str] = {}
    try:
        for token in tokenize.generate_tokens(io.StringIO(text).readline):
            if token.type == tokenize.COMMENT:
                found[token.start[0]] = token.string
    except (tokenize.TokenError, SyntaxError, IndentationError):
        for number, line in enumerate(text.splitlines(), 1):
            if "#" in line:
                found[number] = line[line.index("#"):]
    return found


def codes_on(comment: str) -> Optional[frozenset[str]]:
    match = _NOQA.search(comment)
    if not match:
        return None
    if not match.group("codes"):
        return ALL
    return frozenset(code.upper() for code in re.split(r"[\s,]+", match.group("codes")) if code)


def skips_file(text: str) -> bool:
    return any(_SKIP_FILE.search(comment) for comment in comments(text).values()) \
        if "skip-file" in text else False


def unsuppressed(findings: Iterable[Finding], text: str) -> list[Finding]:
    findings = list(findings)
    if not findings or "noqa" not in text.lower():
        return findings
    by_line = {line: codes for line, comment in comments(text).items()
               if (codes := codes_on(comment)) is not None}
    kept = []
    for finding in findings:
        lines = {finding.line, finding.end_line}
        if any(_covers(by_line.get(line), finding.code) for line in lines):
            continue
        kept.append(finding)
    return kept


def _covers(codes: Optional[frozenset[str]], code: str) -> bool:
    if codes is None:
        return False
    return codes is ALL or any(code.startswith(prefix) for prefix in codes)


def suppression_edit(text: str, finding: Finding) -> Edit:
    """The edit that adds `# noqa: CODE` for `finding`: to the codes of a `# noqa:` comment
    already on its line, else as a comment at the end of the line (its last line when the
    first one ends inside a string)."""
    found, in_strings = _scan(text)
    line = finding.end_line if finding.line in in_strings else finding.line
    starts = line_starts(text)
    end = starts[line] if line < len(starts) else len(text)
    content = text[starts[line - 1]:end].rstrip("\r\n")
    comment = found.get(line)
    match = _NOQA.search(comment) if comment else None
    if match and match.group("codes"):
        at = Position(line, content.rfind(comment) + match.end("codes") + 1)
        return Edit(at, at, f", {finding.code}")
    at = Position(line, len(content.rstrip()) + 1)
    return Edit(at, Position(line, len(content) + 1), f"  # noqa: {finding.code}")


@lru_cache(maxsize=4)
def _scan(text: str) -> tuple[dict[int, str], frozenset[int]]:
    """The comments, and the lines that end inside a string, of one text (tokenized once:
    an editor asks for the actions of many findings of the same text)."""
    in_strings: set[int] = set()
    try:
        for token in tokenize.generate_tokens(io.StringIO(text).readline):
            if token.type == tokenize.STRING and token.end[0] > token.start[0]:
                in_strings.update(range(token.start[0], token.end[0]))
    except (tokenize.TokenError, SyntaxError, IndentationError):
        pass
    return comments(text), frozenset(in_strings)
