"""Large texts in pieces: a text whose syntax tree would take more memory than a check may
(`WHOLE_MARKS`) is parsed and analysed one group of top-level statements at a time, so that
the memory a check takes is bounded by the largest group, not by the file.

A syntax tree takes about 1.2 kB of memory per punctuation mark of its source (one of
`MARKS`: measured 1.0 to 1.25 kB on model code, on tables of data and on long chained
expressions; per character it varies fourfold, as docstrings and comments cost little). A
whole 5 MB module of dense code would take a gigabyte while parsed. A text of more than
`WHOLE_MARKS` marks (about 80 MB of tree) is cut into segments of about `SEGMENT_MARKS`
marks; each is parsed on its own, with blank lines in front so that its line numbers are the
file's, and dropped once analysed. Each segment is analysed as a module that holds the
top-level imports of the segments before it, so names stay resolved; what a segment defines
(functions, classes, module constants) is unknown to the others, as a call into another
module is: a finding that needs a helper defined in another segment is not made. Files of
real projects are analysed whole: the one with the most marks in transformers, timm,
torchvision and the packages of benchmarks/realcode.py has 32 thousand.

Where a text is cut: at the start of a line that starts a statement at column 0, that is, not
indented, not a comment, a closing bracket or a clause of the statement before it (`else`,
`elif`, `except`, `finally`). A cut inside a string or brackets that happens to fall on such a
line leaves the segment before it incomplete: it does not parse, and the segment ends before
the construct the parser found open, or is extended (doubled) until it parses. A group of
statements that cannot be cut within `PART_MARKS` marks is reported instead of checked
(E903), as is a syntax error the parser names there, unless `max-file-size` is 0 (no limit:
such a part is parsed whatever its size).
"""
from __future__ import annotations

import ast
import bisect
import re
import warnings
from dataclasses import dataclass
from typing import Iterator, Optional

MARKS = "(.,=[:+-*"  # the punctuation that makes syntax-tree nodes
WHOLE_MARKS = 64 * 1024  # a text with more is analysed in segments
SEGMENT_MARKS = 32 * 1024  # about as many per segment
PART_MARKS = 64 * 1024  # the most one segment may hold (but see `bounded`)

_CUT = re.compile(r"^(?![ \t\f#\r\n)\]}]|(?:else|elif|except|finally)\b)", re.M)
# the parser's words for a text that stops inside a statement
_UNFINISHED = ("was never closed", "unterminated", "unexpected EOF", "expected an indented")


@dataclass
class Segment:
    """A parsed group of top-level statements (`tree`, its nodes numbered as in the file and
    preceded by the imports of the segments before it), or why none could be made (`error`:
    the parser's message and its line, and whether it is a limit rather than a syntax error)."""

    tree: Optional[ast.Module] = None
    error: Optional[str] = None
    line: int = 1
    column: int = 1
    over_limit: bool = False


def marks(text: str) -> int:
    return sum(map(text.count, MARKS))


def segmented(text: str) -> bool:
    return len(text) > WHOLE_MARKS and marks(text) > WHOLE_MARKS


def segments(text: str, path: str = "-", bounded: bool = True) -> Iterator[Segment]:
    """The text's segments in order; the last one yielded may be an error, after which
    nothing more is parsed. `bounded`: False to parse a part that cannot be cut whatever its
    size (`max-file-size = 0`: no limit on what is checked)."""
    # the marks are spread evenly enough for sizes in characters: a segment is about
    # SEGMENT_MARKS marks of the text's average density
    density = len(text) / max(marks(text), 1)
    segment_chars, part_chars = int(SEGMENT_MARKS * density), int(PART_MARKS * density)
    # ...but whether a part is over the limit is counted, not estimated from its length: a
    # part of sparse code (long strings, comments) has more characters per mark than the text
    cuts = [match.start() for match in _CUT.finditer(text)] + [len(text)]
    imports: list[ast.stmt] = []
    start, line = 0, 1
    while start < len(text):
        end_at = max(bisect.bisect_right(cuts, start + segment_chars) - 1,
                     bisect.bisect_right(cuts, start))
        while True:
            end = cuts[end_at]
            if bounded and marks(text[start:end]) > PART_MARKS:  # never parsed: that is the memory
                yield _too_large(line, marks(text[start:end]))
                return
            tree, error = parse_tree("\n" * (line - 1) + text[start:end], path)
            if tree is not None:
                break
            # What the parser found open may start before the last cut: then the segment
            # ends at the cut before it, and the next one starts with it.
            at = bisect.bisect_right(cuts, _offset(text, start, line, error.lineno)) - 1
            if start < cuts[at] < end:
                tree, _ = parse_tree("\n" * (line - 1) + text[start:cuts[at]], path)
                if tree is not None:
                    end = cuts[at]
                    break
            if end == len(text) or bounded and marks(text[start:end]) >= PART_MARKS:
                if error.msg and not any(words in error.msg for words in _UNFINISHED):
                    yield Segment(error=f"cannot parse: {error.msg}", line=error.lineno or line,
                                  column=max(error.offset or 1, 1))
                else:  # a statement that may well end past the limit
                    yield _too_large(line, marks(text[start:end]))
                return
            # doubled, to the last cut within twice the size (at least the next cut)
            grown = 2 * (end - start)
            end_at = max(end_at + 1, bisect.bisect_right(
                cuts, start + (min(grown, part_chars) if bounded else grown)) - 1)
        statements = tree.body
        tree.body = imports + statements
        imports = imports + [node for node in statements
                             if isinstance(node, (ast.Import, ast.ImportFrom))]
        yield Segment(tree, line=line)
        line += text.count("\n", start, end)
        start = end


def _offset(text: str, start: int, line: int, target: Optional[int]) -> int:
    """Where line `target` of the file starts, given that line `line` starts at `start`
    (`start` where the target is not after it)."""
    offset = start
    for _ in range((target or line) - line):
        found = text.find("\n", offset)
        if found < 0:
            return len(text)
        offset = found + 1
    return offset


def parse_tree(text: str, path: str) -> tuple[Optional[ast.Module], Optional[SyntaxError]]:
    """`ast.parse`, with every way it fails as a SyntaxError (its message says why)."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return ast.parse(text, filename=path, type_comments=False), None
    except SyntaxError as error:
        return None, error
    except ValueError as error:  # NUL bytes
        return None, SyntaxError(str(error), (path, 1, 1, ""))
    except (RecursionError, MemoryError):
        return None, SyntaxError("too deeply nested for Python's parser (its stack "
                                 "overflowed)", (path, 1, 1, ""))


def _too_large(line: int, size: int) -> Segment:
    return Segment(error=f"not checked: the code from line {line} has no place to cut within "
                   f"{PART_MARKS} punctuation marks (this part would have {size} or more); a "
                   "file whose "
                   "syntax tree would take more than about 80 MB is checked in parts of whole "
                   "top-level statements, each cut before a line that starts a statement at "
                   "column 0", line=line, over_limit=True)


def is_valid(text: str, path: str = "-") -> bool:
    """Does the text parse? For a large one, a segment at a time."""
    if not segmented(text):
        return parse_tree(text, path)[0] is not None
    return all(segment.error is None for segment in segments(text, path, bounded=False))
