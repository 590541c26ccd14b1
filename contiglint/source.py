"""Source text as the parser sees it, and the mapping from AST positions to user positions.

`ast` reports columns as UTF-8 byte offsets; users, editors and our JSON speak characters.
Everything that turns a node into a position or an edit goes through `SourceMap`.
"""
from __future__ import annotations

import ast
import hashlib
import re
from functools import cached_property

from contiglint.findings import Edit, Position, line_starts


class SourceMap:
    def __init__(self, text: str) -> None:
        self.text = text
        self.starts = line_starts(text)
        self.ascii = text.isascii()  # then a byte column is a character column

    @cached_property
    def words(self) -> frozenset[str]:
        """Every word of the text (identifiers, keywords, numbers), collected once: a fresh
        name for a fix is checked against them."""
        return frozenset(re.findall(r"\w+", self.text))

    @cached_property
    def lines(self) -> list[str]:
        ends = self.starts[1:] + [len(self.text)]
        return [self.text[start:end].rstrip("\r\n") for start, end in zip(self.starts, ends)]

    def line(self, number: int) -> str:
        return self.lines[number - 1] if 0 < number <= len(self.lines) else ""

    def _column(self, line: int, byte_col: int) -> int:
        if self.ascii:
            return byte_col + 1
        text = self.line(line)
        if text.isascii():
            return byte_col + 1
        return len(text.encode("utf-8")[:byte_col].decode("utf-8", errors="replace")) + 1

    def start(self, node: ast.AST) -> Position:
        return Position(node.lineno, self._column(node.lineno, node.col_offset))

    def end(self, node: ast.AST) -> Position:
        return Position(node.end_lineno, self._column(node.end_lineno, node.end_col_offset))

    def offset(self, position: Position) -> int:
        return self.starts[position.line - 1] + position.column - 1

    def segment(self, node: ast.AST) -> str:
        return self.text[self.offset(self.start(node)):self.offset(self.end(node))]

    def shorten(self, node: ast.AST, limit: int = 40) -> str:
        """The node's source on one line, cut to `limit` characters, for messages."""
        return self.shorten_text(self.segment(node), limit)

    @staticmethod
    def shorten_text(text: str, limit: int = 40) -> str:
        text = " ".join(text.split())
        return text if len(text) <= limit else text[: limit - 3] + "..."

    # --- edits -------------------------------------------------------------------------------
    def replace(self, node: ast.AST, content: str) -> Edit:
        return Edit(self.start(node), self.end(node), content)

    def insert_after(self, node: ast.AST, content: str) -> Edit:
        end = self.end(node)
        return Edit(end, end, content)

    def insert_before(self, node: ast.AST, content: str) -> Edit:
        start = self.start(node)
        return Edit(start, start, content)

    def attribute_name(self, node: ast.Attribute) -> tuple[Position, Position]:
        """The span of `name` in `value.name` (the node ends with the name)."""
        end = self.end(node)
        return Position(end.line, end.column - len(node.attr)), end

    def indentation(self, line: int) -> str:
        text = self.line(line)
        return text[: len(text) - len(text.lstrip(" \t"))]


def text_digest(text: str) -> str:
    """What identifies a text: the cache's keys and stat index, and the contracts' reuse of a
    module's summary, compare texts by it."""
    return hashlib.blake2b(text.encode("utf-8", "surrogatepass"), digest_size=16).hexdigest()
