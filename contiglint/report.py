"""Output formats: full (source context), text, json, sarif, github annotations, statistics.

Findings and errors are rendered here and nowhere else. Each renderer returns the text for
stdout and the text for stderr, so the CLI only prints. Problems that stopped a file from being
checked (`SourceError`) use flake8-style codes so editors and CI treat them as errors:
E999 the file does not parse, E902 the file cannot be read/decoded/written, E903 the file is
over a limit (`max-file-size`), E900 contiglint failed internally.
"""
from __future__ import annotations

import json
import os
import re
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Mapping, Optional, Sequence

from contiglint import __version__
from contiglint.engine import SourceError
from contiglint.findings import Finding, rewrites_available
from contiglint.rules import all_rules, registry, rule_by_code, severity

ERROR_CODES = {"syntax": "E999", "io": "E902", "internal": "E900", "limit": "E903"}
FORMATS = ("full", "text", "json", "sarif", "github")


@dataclass(frozen=True)
class ReportContext:
    mode: str = "check"  # "check" | "fix" | "diff"
    unsafe_fixes: bool = False
    fixed: int = 0
    changed_files: int = 0
    quiet: bool = False
    statistics: bool = False
    color: bool = False  # ANSI colours (a terminal without NO_COLOR)
    sources: Optional[Mapping[str, str]] = None  # path -> text, for files not on disk (stdin)
    nothing_checked: bool = False  # no file found: "All checks passed!" would claim too much
    not_run: tuple[str, ...] = ()  # selected preview rules that did not run (preview is off)


def error_code(error: SourceError) -> str:
    return ERROR_CODES.get(error.kind, "E900")


def is_fixable(finding: Finding, unsafe_fixes: bool) -> bool:
    return finding.fix is not None and finding.fix.offered and (
        finding.fix.safety == "safe" or unsafe_fixes)


def fix_notes(findings: Sequence[Finding], unsafe_fixes: bool, quiet: bool = False) -> str:
    """stderr lines on fixes a run could not offer: one per fix whose edits could not be made
    (a bug: the finding is reported without it), and once, where unsafe fixes are asked for
    and LibCST is missing, how many fixes that add statements the `fix` extra would add."""
    lines = [f"contiglint: warning: {f.path}:{f.line}:{f.column}: {f.code}: its fix is left "
             f"out: {f.fix.problem}; please report this bug" for f in findings
             if f.fix is not None and f.fix.problem]
    if unsafe_fixes and not quiet and not rewrites_available():
        missing = sum(f.fix is not None and f.fix.rewrite is not None for f in findings)
        if missing:
            lines.append(f"contiglint: hint: {_plural(missing, 'fix', 'fixes')} that add "
                         "statements need LibCST: pip install 'contiglint[fix]'")
    return _lines(lines)


def render(format: str, findings: Sequence[Finding], errors: Sequence[SourceError],
           context: ReportContext) -> tuple[str, str]:
    """(stdout, stderr) for one run."""
    # machine-read formats: what did not run goes to stderr, never into the data
    note = "" if context.quiet else not_run_line(context.not_run, "contiglint: warning: ")
    if format == "json":
        return _json(findings, errors, context), note
    if format == "sarif":
        return json.dumps(sarif(findings, errors), indent=2) + "\n", note
    if format == "github":
        return "".join(github_line(f.path, f.line, f.column, f.end_line, f.end_column, f.code,
                                   f.message, severity(f.code)) for f in findings) + \
            "".join(github_line(e.path, e.line, e.column, e.line, e.column, error_code(e),
                                e.message) for e in errors), note
    return _text(findings, errors, context, full=format == "full")


def not_run_line(codes: Sequence[str], prefix: str = "") -> str:
    """`3 preview rules not run (CTG102, CTG104, CTG108): use --preview`, or "" for none."""
    if not codes:
        return ""
    return (f"{prefix}{_plural(len(codes), 'preview rule')} not run ({', '.join(codes)}): "
            "use --preview\n")


def _plural(count: int, word: str, plural: str = "") -> str:
    return f"{count} {word if count == 1 else plural or word + 's'}"


class _Style:
    """ANSI styling, or none: `paint(text, "red")` returns the text unchanged without colour."""

    CODES = {"bold": "1", "red": "1;31", "yellow": "1;33", "blue": "1;34", "cyan": "36",
             "green": "32", "dim": "2"}

    def __init__(self, enabled: bool) -> None:
        self.enabled = enabled

    def __call__(self, text: str, style: str) -> str:
        return f"\x1b[{self.CODES[style]}m{text}\x1b[0m" if self.enabled and text else text

    def severity(self, level: str) -> str:
        return self(level, "red" if level == "error" else "yellow")


def text_line(f: Finding, unsafe_fixes: bool = False, paint: _Style = _Style(False)) -> str:
    """`path:line:col: CODE severity: message [*]`, the concise form of one finding."""
    mark = " " + paint("[*]", "cyan") if is_fixable(f, unsafe_fixes) else ""
    return (f"{paint(f'{f.path}:{f.line}:{f.column}:', 'bold')} {paint(f.code, 'cyan')} "
            f"{paint.severity(severity(f.code))}: {f.message}{mark}")


def _text(findings: Sequence[Finding], errors: Sequence[SourceError],
          context: ReportContext, full: bool = False) -> tuple[str, str]:
    out: list[str] = []
    paint = _Style(context.color)
    if context.statistics:
        out.extend(statistics_lines(findings, context.unsafe_fixes))
    elif full:
        snippets = _Snippets(context.sources or {})
        for f in findings:
            out.extend(full_lines(f, snippets, context.unsafe_fixes, paint))
    else:
        out.extend(text_line(f, context.unsafe_fixes, paint) for f in findings)
    err = [f"{paint(f'{e.path}:{e.line}:{e.column}:', 'bold')} {paint(error_code(e), 'red')} "
           f"{e.message}" for e in errors]
    if not context.quiet:
        fixable = sum(is_fixable(f, context.unsafe_fixes) for f in findings)
        hidden = sum(f.fix is not None and f.fix.offered for f in findings) - fixable
        total = len(findings) + context.fixed
        if context.fixed:
            out.append(f"Found {_plural(total, 'problem')} ({context.fixed} fixed, "
                       f"{len(findings)} remaining).")
        elif findings:
            fix_hint = f" ({fixable} fixable with --fix)" if fixable else ""
            out.append(f"Found {_plural(len(findings), 'problem')}{fix_hint}.")
        elif not errors and not context.nothing_checked:
            out.append("All checks passed!")
        if hidden:
            out.append(f"{_plural(hidden, 'more fix', 'more fixes')} available with "
                       "--unsafe-fixes.")
        if context.not_run:
            out.append(not_run_line(context.not_run).rstrip("\n"))
        if errors:
            err.append(f"contiglint: {_plural(len(errors), 'error')} (listed above) stopped "
                       "files from being checked completely.")
    return _lines(out), _lines(err)


class _Snippets:
    """Source lines for the full format: from `sources` (stdin) or read from disk, once."""

    def __init__(self, sources: Mapping[str, str]) -> None:
        self.texts: dict[str, Optional[list[str]]] = {
            path: text.splitlines() for path, text in sources.items()}

    def line(self, path: str, number: int) -> Optional[str]:
        if path not in self.texts:
            self.texts[path] = _read_lines(path)
        lines = self.texts[path]
        if lines is None or not 0 < number <= len(lines):
            return None
        return lines[number - 1].replace("\t", " ")


def _read_lines(path: str) -> Optional[list[str]]:
    from contiglint.files import read_source

    source = read_source(path)
    return None if isinstance(source, SourceError) else source.text.splitlines()


_TOKEN = re.compile(r"\.?[\w]+|\S")
_QUOTED = re.compile(r"`([^`]+)`")


def _related_span(text: str, related) -> tuple[int, int]:
    """Columns to underline for a related place: the quoted op of its note when the line
    holds it at or after the column (`.transpose(1, 2)`), else the token at the column."""
    quoted = _QUOTED.search(related.message)
    if quoted:
        found = text.find(quoted.group(1), related.column - 1)
        if found >= 0:
            return found + 1, found + 1 + len(quoted.group(1))
    token = _TOKEN.match(text, related.column - 1)
    return related.column, related.column + (len(token.group()) if token else 1)


def full_lines(f: Finding, snippets: _Snippets, unsafe_fixes: bool = False,
               paint: _Style = _Style(False)) -> list[str]:
    """A finding with its source: the line with `^` under the sink, the related places with
    `-` under them and their notes, then the fix, like ruff's and rustc's diagnostics."""
    level = severity(f.code)
    mark = " " + paint("[*]", "cyan") if is_fixable(f, unsafe_fixes) else ""
    lines = [f"{paint.severity(level)}{paint(f'[{f.code}]', 'bold')}: "
             f"{paint(f.message, 'bold')}{mark}",
             f"  {paint('-->', 'blue')} {f.path}:{f.line}:{f.column}"]
    marks: dict[int, list[tuple[int, int, str, str]]] = {}
    primary = snippets.line(f.path, f.line)
    if primary is not None:
        end = min(f.end_column, len(primary) + 1) if f.end_line == f.line else len(primary) + 1
        marks.setdefault(f.line, []).append((f.column, max(end, f.column + 1), "^", ""))
    for r in f.related:
        text = snippets.line(f.path, r.line)
        if text is None:
            continue
        marks.setdefault(r.line, []).append((*_related_span(text, r), "-", r.message))
    if marks:
        width = len(str(max(marks)))
        gutter = paint(" " * width + " |", "blue")
        lines.append(gutter)
        previous = None
        for number in sorted(marks):
            if previous is not None and number > previous + 1:
                lines.append(paint(" " * width + " :", "blue"))
            previous = number
            lines.append(f"{paint(str(number).rjust(width) + ' |', 'blue')} "
                         f"{snippets.line(f.path, number)}")
            for start, end, char, note in marks[number]:
                style = "red" if char == "^" and level == "error" else \
                    "yellow" if char == "^" else "blue"
                underline = paint(char * (end - start), style)
                lines.append(f"{gutter} {' ' * (start - 1)}{underline}"
                             f"{' ' + note if note else ''}")
        lines.append(gutter)
    if f.fix is not None and f.fix.offered:
        how = "--fix" if f.fix.safety == "safe" else "--fix --unsafe-fixes"
        lines.append(f"  {paint('=', 'blue')} fix ({f.fix.safety}, {how}): "
                     f"{f.fix.description or 'available'}")
    rule = rule_by_code(f.code)
    if rule is not None:
        lines.append(f"  {paint('=', 'blue')} help: `contiglint rule {f.code}` ({rule.name})")
    lines.append("")
    return lines


def diff_summary(fixed: int, changed_files: int) -> str:
    """For --diff, on stderr: the diff itself goes to stdout untouched."""
    if not fixed:
        return "No fixes available.\n"
    return f"Would fix {_plural(fixed, 'problem')} in {_plural(changed_files, 'file')}.\n"


def _lines(lines: Sequence[str]) -> str:
    return "".join(line + "\n" for line in lines)


def statistics_lines(findings: Sequence[Finding], unsafe_fixes: bool = False) -> list[str]:
    """One line per code, most frequent first: count, code, `[*]` if fixable, rule name."""
    rows = []
    for code, count in statistics(findings):
        rule = rule_by_code(code)
        fixable = any(is_fixable(f, unsafe_fixes) for f in findings if f.code == code)
        rows.append(f"{count:>5}  {code}  {'[*]' if fixable else '   '} "
                    f"{rule.name if rule else ''}".rstrip())
    return rows


def statistics(findings: Sequence[Finding]) -> list[tuple[str, int]]:
    counts = Counter(f.code for f in findings)
    return sorted(counts.items(), key=lambda item: (-item[1], item[0]))


def finding_as_json(finding: Finding) -> dict:
    """A finding as the json format writes it: its fields, with its rule's severity after the
    code (the cache stores findings without it: it follows from the code)."""
    fields = list(finding.as_json().items())
    after_code = [key for key, _ in fields].index("code") + 1
    return dict(fields[:after_code] + [("severity", severity(finding.code))]
                + fields[after_code:])


def error_as_json(error: SourceError) -> dict:
    """An error in the finding schema, so a json consumer reads one list of one shape."""
    return {"path": error.path, "line": error.line, "column": error.column,
            "end_line": error.line, "end_column": error.column, "code": error_code(error),
            "severity": "error", "message": error.message, "fix": None, "related": [],
            "witness": None}


def _json(findings: Sequence[Finding], errors: Sequence[SourceError],
          context: ReportContext) -> str:
    if context.statistics:
        data = [{"code": code, "name": getattr(rule_by_code(code), "name", ""), "count": count}
                for code, count in statistics(findings)]
    else:
        data = [finding_as_json(f) for f in findings] + [error_as_json(e) for e in errors]
    return json.dumps(data, indent=2, ensure_ascii=False) + "\n"


def github_line(path: str, line: int, column: int, end_line: int, end_column: int, code: str,
                message: str, level: str = "error") -> str:
    """A GitHub Actions workflow command (`::error` or `::warning`) that annotates the line
    in the pull request."""
    properties = ",".join(f"{key}={_escape_property(str(value))}" for key, value in (
        ("file", path), ("line", line), ("col", column), ("endLine", end_line),
        ("endColumn", end_column), ("title", code)))
    return f"::{level} {properties}::{_escape_data(message)}\n"


def _escape_data(text: str) -> str:
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _escape_property(text: str) -> str:
    return _escape_data(text).replace(":", "%3A").replace(",", "%2C")


def _uri(path: str) -> dict:
    if os.path.isabs(path):
        return {"uri": Path(path).as_uri()}
    return {"uri": Path(path).as_posix(), "uriBaseId": "%SRCROOT%"}


def _region(line: int, column: int, end_line: int, end_column: int) -> dict:
    return {"startLine": line, "startColumn": column, "endLine": end_line,
            "endColumn": end_column}


def sarif(findings: Sequence[Finding], errors: Sequence[SourceError]) -> dict:
    """A SARIF 2.1.0 log: one run, every known rule, results with related locations."""
    rules = list(all_rules())
    index = {rule.code: number for number, rule in enumerate(rules)}
    results = []
    for f in findings:
        result = {
            "ruleId": f.code,
            "level": severity(f.code),
            "message": {"text": f.message},
            "locations": [{"physicalLocation": {
                "artifactLocation": _uri(f.path),
                "region": _region(f.line, f.column, f.end_line, f.end_column)}}],
        }
        if f.code in index:
            result["ruleIndex"] = index[f.code]
        if f.witness is not None:
            result["properties"] = {"witness": f.witness.as_json()}
        if f.related:
            result["relatedLocations"] = [
                {"id": number, "message": {"text": r.message},
                 "physicalLocation": {"artifactLocation": _uri(f.path),
                                      "region": {"startLine": r.line, "startColumn": r.column}}}
                for number, r in enumerate(f.related, 1)]
        results.append(result)
    notifications = [{
        "level": "error",
        "descriptor": {"id": error_code(e)},
        "message": {"text": e.message},
        "locations": [{"physicalLocation": {"artifactLocation": _uri(e.path),
                                            "region": {"startLine": e.line,
                                                       "startColumn": e.column}}}],
    } for e in errors]
    driver = {
        "name": "contiglint",
        "version": __version__,
        "rules": [{
            "id": rule.code,
            "name": rule.name,
            "shortDescription": {"text": rule.summary},
            "fullDescription": {"text": rule.documentation()},
            "help": {"text": rule.documentation()},
            "defaultConfiguration": {"level": rule.severity},
            "properties": {"fix": rule.fix_safety, "opt_in": registry.is_opt_in(rule)},
        } for rule in rules],
    }
    return {
        "$schema": "https://json.schemastore.org/sarif-2.1.0.json",
        "version": "2.1.0",
        "runs": [{
            "tool": {"driver": driver},
            "invocations": [{"executionSuccessful": not errors,
                             "toolExecutionNotifications": notifications}],
            "results": results,
        }],
    }
