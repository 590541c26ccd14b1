"""May a copy-if-needed call be written into, as far as the text shows? The look before the
parse that answers `ModuleIndex.may_write_into_copy` (CTG111's `may_fire`) with *may*.

The parsed question follows each call `x.contiguous(...)`, `x.reshape(...)`, ... up its
receiver spine (the calls, attributes and subscripts it is the receiver of) and asks what
happens at the top (`ModuleIndex._written_spine`): a write (a method named with a trailing
`_`, a subscript stored into or deleted, an augmented assignment's target, an `out=`
argument), an argument of a call (a write only where a call of the module may write its
arguments), or neither. Here the same spine is read from the text, from the call's `(`:
brackets are skipped whole (strings and comments inside them too), and what follows decides.
Where the text could be read more than one way, the answer is the one that keeps the module:
a subscript followed by anything that may end a target (`,`, `)`, `=`, `in`, ...) is taken
as stored into, a `)` or `,` after the spine as a call's argument, and a spine the bounded
look cannot finish as written. The brackets a text's spines skip may nest (`f(a.to(b.to(...)))`
reads each inner call again for each outer one): past a budget of characters proportional to
the text's length, the text is taken as written into, so the look stays linear.
"""
from __future__ import annotations

import re
from typing import Optional

from contiglint.catalogue import inplace, ops
from contiglint.layout.syntax.index import COLLECTIVE_NAMES
from contiglint.layout.syntax.text import BETWEEN, WINDOW, WORDS, Text, called_names

COPY_METHODS = ops.COPIES_IF_NEEDED
_UNSURE = -1
_AUGMENTED = ("+=", "-=", "*=", "/=", "//=", "%=", "@=", "&=", "|=", "^=", ">>=", "<<=",
              "**=")
_OPENING = {"(": ")", "[": "]", "{": "}"}
_OUT_KEYWORD = re.compile(r"\bout\s*=(?!=)")
_TORCH_ALIAS = re.compile(r"(?<!\w)torch\s+as(?!\w)")
_NOT_ATTRIBUTED_TORCH = re.compile(r"(?<!\w)torch(?!\w)(?!\s*\.)")
# what ends a subscript's spine when it is (or is part of) an assignment's, a loop's or a
# `with`'s target
_TARGET_ENDS = ",)]=:"
_TARGET_WORDS = ("in", "as")


def may_write_into_copy(text: Text) -> bool:
    """May a copy-if-needed call's result be written into (see the module docstring)?"""
    passed = False
    body = text.text
    budget = _Budget(2 * len(body) + 16 * WINDOW)
    for end in called_names(body, COPY_METHODS):
        opening = _call_opening(body, end)
        if opening is None:
            continue
        fate = "write" if opening == _UNSURE else _fate(text, opening, budget)
        if fate == "write" or budget.spent():
            return True
        passed = passed or fate == "argument"
    # an argument is written where it is an `out=` one, or where a call may write one
    return passed and (text.has_word("out") and _OUT_KEYWORD.search(body) is not None or
                       may_write_arguments(text))


def may_write_arguments(text: Text) -> bool:
    """The text's answer to `ModuleIndex.may_write_arguments`: an `inplace` keyword, a
    collective (`may_call_collective`), or a torch function spelled like an in-place method,
    or torch itself handed on: where the text spells `torch`, any word named like an in-place
    op, `functional` (`torch.functional` is torch), an alias of torch, or `torch` other than
    before a dot outside an import."""
    if text.has_word("inplace") or may_call_collective(text):
        return True
    if not text.has_word("torch"):
        return False  # every name bound to torch itself is imported by a name that spells it
    if text.has_word("functional") or any(map(inplace.is_inplace, text.words)):
        return True
    body = text.text
    if _TORCH_ALIAS.search(body):
        return True
    for found in _NOT_ATTRIBUTED_TORCH.finditer(body):
        start = found.start()
        line = body.rfind("\n", max(0, start - WINDOW), start) + 1
        if not line and start > WINDOW:
            return True  # a line longer than the look: it may not be an import
        words = body[line:start].lstrip()
        if not (words.startswith("import ") or words.startswith("from ")):
            return True
    return False


def may_call_collective(text: Text) -> bool:
    """The text's answer to `ModuleIndex.may_call_collective`: it spells `distributed` and
    a collective's name as words."""
    return text.has_word("distributed") and text.names_any(COLLECTIVE_NAMES)


def _call_opening(text: str, end: int) -> Optional[int]:
    """Where the `(` of a call of the attribute ending at `end` stands (blanks, comments and
    the `)` of `(x.to)(...)` between), None where it is not called, `_UNSURE` where the
    window ends first."""
    at = end
    limit = min(len(text), end + WINDOW)
    while at < limit:
        char = text[at]
        if char == "(":
            return at
        if char == "#":
            at = _line_end(text, at, limit)
        elif char in " \t\f\r\n\\)":
            at += 1
        else:
            return None
    return _UNSURE if at < len(text) else None


def _fate(code: Text, opening: int, budget: "_Budget") -> str:
    """What happens to the call whose `(` is at `opening`: "write", "argument" or "none"
    (see the module docstring); "write" where the look cannot tell."""
    text = code.text
    at = _closing(text, opening, budget)
    subscripted = False
    while at is not None:
        at = _skip(text, at)
        if at is None:
            return "write"
        char = text[at:at + 1]
        if char == ".":
            name = WORDS.match(text, _skip(text, at + 1) or len(text))
            if name is None:
                return "write"
            if name[0].endswith("_"):
                return "write"
            at, subscripted = name.end(), False
        elif char == "(":
            at, subscripted = _closing(text, at, budget), False
        elif char == "[":
            at, subscripted = _closing(text, at, budget), True
        elif text.startswith(_AUGMENTED, at):
            return "write"
        elif subscripted:
            word = WORDS.match(text, at)
            ends = char != "" and char in _TARGET_ENDS and not text.startswith("==", at)
            return "write" if ends or word is not None and word[0] in _TARGET_WORDS or \
                code.has_word("del") else "none"
        elif char == ")":
            after = _skip_closing(text, at)
            if after is None or text.startswith(_AUGMENTED, after) or \
                    text[after:after + 1] == "=" and text[after + 1:after + 2] != "=":
                return "write"  # a parenthesized target
            return "argument"
        elif char == ",":
            return "argument"
        else:
            return "none"
    return "write"


def _skip(text: str, at: int) -> Optional[int]:
    """The first character from `at` that is not a blank, a continuation or a comment; None
    past the window."""
    stop = BETWEEN.match(text, at, at + WINDOW).end()
    return None if stop == at + WINDOW and stop < len(text) else stop


def _skip_closing(text: str, at: int) -> Optional[int]:
    """`_skip`, also past closing parentheses."""
    while at is not None and text[at:at + 1] == ")":
        at = _skip(text, at + 1)
    return at


class _Budget:
    """How many more characters the look may read inside brackets, for the whole text."""

    def __init__(self, left: int) -> None:
        self.left = left

    def take(self, count: int) -> bool:
        self.left -= count
        return self.left >= 0

    def spent(self) -> bool:
        return self.left < 0


def _closing(text: str, opening: int, budget: _Budget) -> Optional[int]:
    """The position after the bracket that closes the one at `opening` (strings and comments
    inside skipped whole); None where the look cannot find it within a bounded stretch, or
    the budget is spent."""
    stack = [_OPENING[text[opening]]]
    at, limit = opening + 1, min(len(text), opening + 16 * WINDOW)
    while at < limit:
        char = text[at]
        if char in _OPENING:
            stack.append(_OPENING[char])
        elif char in ")]}":
            if char != stack.pop():
                break
            if not stack:
                return at + 1 if budget.take(at + 1 - opening) else None
        elif char == "#":
            at = _line_end(text, at, limit) - 1
        elif char in "'\"":
            end = _string_end(text, at, limit)
            if end is None:
                break
            at = end
            continue
        at += 1
    budget.take(at - opening)
    return None


def _string_end(text: str, at: int, limit: int) -> Optional[int]:
    """The position after the string literal whose quote is at `at`, before `limit` (an
    f-string's fields that hold the same quote, which Python 3.12 allows, end it early: the
    brackets then do not balance, and the look gives up)."""
    quote = text[at] * 3 if text.startswith(text[at] * 3, at) else text[at]
    at += len(quote)
    while at < limit:
        if text[at] == "\\":
            at += 2
        elif text.startswith(quote, at):
            return at + len(quote)
        elif text[at] == "\n" and len(quote) == 1:
            return None
        else:
            at += 1
    return None


def _line_end(text: str, at: int, limit: int) -> int:
    """Where the line holding `at` ends, or `limit` if it does not end before."""
    end = text.find("\n", at, limit)
    return limit if end < 0 else end
