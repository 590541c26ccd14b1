"""`contiglint explain FILE:LINE[:COL]`: the layout of the tensors at a place, and why.

With a column: the tensor expression that covers it (the smallest). Without: the names the
line binds (else what its statement evaluates) and the tensors that reach a finding there. The
file is linted with the same configuration as `contiglint FILE` (`--select` and friends work
the same way), so the findings shown are the ones the linter reports.

Exit status: 0 explained (whatever the engine knows, "unknown" included); 2 a usage,
configuration, I/O or syntax error.
"""
from __future__ import annotations

import argparse
import os
import re
import sys
from typing import Optional, Sequence

from contiglint.config import ConfigError, Overrides, resolve, split_codes
from contiglint.engine import SourceError
from contiglint.files import read_source
from contiglint.layout.explain.query import Analysis, analyze
from contiglint.layout.explain.render import Explanation

_PLACE = re.compile(r"^(?P<path>.+?):(?P<line>[^:]+)(?::(?P<column>[^:]+))?$")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="contiglint explain",
        description="Show what contiglint infers at a place: each tensor's shape, strides "
                    "and memory order, whether it is contiguous and why, the operations that "
                    "made its layout, and the findings there.")
    parser.add_argument("place", metavar="FILE:LINE[:COL]",
                        help="a place in a Python file; lines and columns count from 1")
    parser.add_argument("--format", choices=("text", "json"), default="text")
    parser.add_argument("--select", metavar="CODES", help="as for `contiglint`")
    parser.add_argument("--extend-select", metavar="CODES", help="as for `contiglint`")
    parser.add_argument("--ignore", metavar="CODES", help="as for `contiglint`")
    parser.add_argument("--preview", action="store_true", default=None,
                        help="as for `contiglint`")
    parser.add_argument("--no-preview", action="store_false", dest="preview",
                        help="as for `contiglint`")
    parser.add_argument("--config", metavar="FILE", help="as for `contiglint`")
    return parser


def parse_place(place: str) -> tuple[str, int, Optional[int]]:
    """`model.py:36:34` -> ("model.py", 36, 34); ValueError naming what is wrong."""
    match = _PLACE.match(place)
    if match is None:
        raise ValueError(f"{place!r} is not FILE:LINE or FILE:LINE:COL")
    numbers = []
    for name in ("line", "column"):
        text = match.group(name)
        if text is None:
            numbers.append(None)
            continue
        if not text.isdigit() or int(text) < 1:
            raise ValueError(f"{place!r}: the {name} must be a whole number from 1, not "
                             f"{text!r}")
        numbers.append(int(text))
    return match.group("path"), numbers[0], numbers[1]


def explain_place(analysis: Analysis, line: int, column: Optional[int]) -> Explanation:
    explanation = Explanation(analysis.path, line, column, errors=list(analysis.result.errors))
    if analysis.tree is None:
        return explanation
    if column is None:
        nodes = analysis.on_line(line)
    else:
        node = analysis.at(line, column)
        nodes = [node] if node is not None else []
    explanation.tensors = [analysis.report(node) for node in nodes]
    explanation.findings = analysis.findings_on(line)
    return explanation


def main(argv: Optional[Sequence[str]] = None) -> int:
    options = build_parser().parse_args(list(argv or []))
    try:
        path, line, column = parse_place(options.place)
    except ValueError as error:
        return _error(str(error))
    if not os.path.isfile(path):
        return _error(f"{path}: no such file")
    try:
        overrides = Overrides(split_codes("--select", options.select),
                              split_codes("--ignore", options.ignore),
                              split_codes("--extend-select", options.extend_select),
                              preview=options.preview)
        settings = resolve(overrides, options.config,
                           os.path.dirname(path) or ".").settings_for(path)
    except ConfigError as error:
        return _error(str(error))
    source = read_source(path, digest=False)
    if isinstance(source, SourceError):
        return _error(f"{path}: {source.message}")
    lines = source.text.splitlines() or [""]
    if line > len(lines):
        return _error(f"{path}: line {line} is past the end of the file ({len(lines)} lines)")
    if column is not None and column > len(lines[line - 1]) + 1:
        return _error(f"{path}:{line}: column {column} is past the end of the line "
                      f"({len(lines[line - 1])} characters)")
    explanation = explain_place(analyze(source.text, path, settings), line, column)
    print(explanation.to_json() if options.format == "json" else explanation.to_text())
    return 2 if explanation.errors else 0


def _error(message: str) -> int:
    print(f"contiglint explain: error: {message}", file=sys.stderr)
    return 2
