"""Reading code from its text, before it is parsed.

Parsing is a large share of a run's cost, and most files hold nothing a rule or a contract
needs. The questions asked of a text here each answer *may*: a text they clear cannot give
the syntax that the parsed question looks for, so clearing it loses nothing, and a text they
do not clear is parsed and asked again. Each look is bounded (`WINDOW` characters around a
name), so the cost stays linear in the text's length whatever it holds.

The text is read as Python reads it (`prefilter.as_python_reads`: identifiers in NFKC form),
so every name of the code is a word of the text.
"""
from __future__ import annotations

import re
from functools import cached_property
from typing import Iterable, Iterator, Optional

# what may stand between a called attribute's name and its `(`: blanks, line continuations,
# the `)` of `(x.stride)(...)`, and inside brackets newlines and comments (each read whole,
# so that matching never backtracks through the ways of splitting one)
BEFORE_CALL = re.compile(r"(?:[\s\\)]|#[^\n]*(?:\n|\Z))*")
# ... and between two parts of an expression inside brackets: blanks, continuations, comments
BETWEEN = re.compile(r"(?:\s|\\|#[^\n]*(?:\n|\Z))*")
BLANKS = " \t\f\r\n\\"
WORDS = re.compile(r"\w+")
# how far from a name the text is read for its dot and its `(`: beyond it, either may be
# there, so the name counts; each name costs at most this much, and the search stays linear
WINDOW = 256


class Text:
    """A text as Python reads it, with its words made once, on first use. `Text.of` gives the
    same one for the same string while it is the last asked for: a run asks of one file's
    text several times (its summary, whether it needs a tree, its lint) before the next."""

    _last: Optional["Text"] = None

    def __init__(self, text: str) -> None:
        self.text = text

    @classmethod
    def of(cls, text: str) -> "Text":
        last = cls._last
        if last is None or last.text is not text:
            last = cls._last = cls(text)
        return last

    @cached_property
    def words(self) -> frozenset[str]:
        """Every word of the text (the code's names, and the words of its strings and
        comments). An ASCII text's are split out of a copy whose other bytes are blanks,
        three times faster than matching each."""
        text = self.text
        if text.isascii():
            return frozenset(text.encode("ascii").translate(_ASCII_WORDS).decode().split())
        return frozenset(WORDS.findall(text))

    def has_word(self, name: str) -> bool:
        """Does the text spell `name` as a word? (Looked for alone until every word is made.)"""
        if "words" in self.__dict__:
            return name in self.words
        if name not in self.text:
            return False
        pattern = _WORD_PATTERNS.get(name)
        if pattern is None:
            pattern = _WORD_PATTERNS[name] = re.compile(rf"(?<!\w){re.escape(name)}(?!\w)")
        return pattern.search(self.text) is not None

    def names_any(self, names: Iterable[str]) -> bool:
        """May the code name one of `names`? Not unless the text spells it as a word."""
        return any(map(self.has_word, names))


_WORD_PATTERNS: dict[str, re.Pattern] = {}
# the bytes of an ASCII word's characters, and a blank for every other byte
_ASCII_WORDS = bytes(code if chr(code).isalnum() or code == ord("_") else ord(" ")
                     for code in range(128)) + b" " * 128


def occurrences(text: str, name: str, start: bool = True) -> Iterator[int]:
    """Where `name` stands in the text as a word (`start`: also not preceded by a word
    character; else only not followed by one, as a suffix): found with `str.find`, far
    faster than a pattern of words."""
    at = text.find(name)
    while at >= 0:
        end = at + len(name)
        if not (start and at > 0 and word_char(text[at - 1])) and \
                not (end < len(text) and word_char(text[end])):
            yield at
        at = text.find(name, at + 1)


def word_char(char: str) -> bool:
    return char.isalnum() or char == "_"


def followed_by(text: str, end: int, bracket: str) -> bool:
    """May `bracket` be the first character after `end` that is not a blank, a comment or a
    closing parenthesis? Also when the window ends before one: it may follow."""
    stop = BEFORE_CALL.match(text, end, end + WINDOW).end()
    if stop == end + WINDOW and stop < len(text):
        return True
    return stop < len(text) and text[stop] == bracket


def after_attribute(text: str, start: int) -> bool:
    """May the word starting at `start` be an attribute's name, `x.word` (with what Python
    allows between: `x . word`, `(x.\\n word)`)? A comment between the dot and the name
    (`x.  # note` on the line before) is not read backwards: a line with a `#` before the
    name's line counts as one that may end with the dot."""
    low = max(0, start - WINDOW)
    at, crossed = start - 1, False
    while at >= low and text[at] in BLANKS:
        crossed = crossed or text[at] == "\n"
        at -= 1
    if at < low and low > 0:
        return True
    if at >= low and text[at] == ".":
        return True
    line = text.rfind("\n", 0, max(at, 0)) + 1
    return crossed and at >= low and "#" in text[line:at + 1]


def called_attribute(text: str, start: int, end: int) -> bool:
    """May the word at `text[start:end]` be the name of a call of an attribute, `x.word(...)`?
    (`after_attribute`, and a `(` after it: `followed_by`.)"""
    return after_attribute(text, start) and followed_by(text, end, "(")


def may_launch(text: Text) -> bool:
    """May the code call a subscript (`kernel[grid](x)`)? A `]` followed by a `(` (blanks,
    comments and closing parentheses between)."""
    body = text.text
    return any(followed_by(body, found.start() + 1, "(")
               for found in _BEFORE_BRACKET_OR_COMMENT.finditer(body))


# a `]` that blanks and closing parentheses may separate from a `(`, or from a comment after
# which one may follow (`followed_by` reads that)
_BEFORE_BRACKET_OR_COMMENT = re.compile(r"\](?=[ \t\f\r\n\\)]*[(#])")


def called_names(text: str, names: frozenset[str]) -> Iterator[int]:
    """Where a word of `names` that may be an attribute's (`after_attribute`) ends: after a
    dot and blanks, or at the start of a line after a comment (`x.  # note` before it)."""
    patterns = _NAME_PATTERNS.get(names)
    if patterns is None:
        alternatives = "|".join(sorted(map(re.escape, names), key=len, reverse=True))
        patterns = _NAME_PATTERNS[names] = (
            re.compile(rf"\.[ \t\f\r\n\\]*(?:{alternatives})(?!\w)"),
            re.compile(rf"\n[ \t\f\r\n\\]*(?P<name>{alternatives})(?!\w)"))
    dotted, leading = patterns
    ends = [found.end() for found in dotted.finditer(text)]
    yield from ends
    seen = set(ends)
    for found in leading.finditer(text):
        if found.end() not in seen and after_attribute(text, found.start("name")):
            yield found.end()


_NAME_PATTERNS: dict[frozenset[str], re.Pattern] = {}
