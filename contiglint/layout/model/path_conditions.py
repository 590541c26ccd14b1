"""What a path to a sink shows of the sizes on it, which a witness must keep.

A witness names sizes under which the sink fails; it is a witness only where those sizes
reach the sink. Two things on the path rule sizes out:

- a test the code made: `if x.size(1) > 1:` before the sink, so a witness gives that size 2
  or more (`above_one`, the symbol texts; flow/branch_statements.py);
- a view or reshape the path ran: it raises unless its input and its shape have the same
  number of elements (one `-1`: a shape whose other sizes divide it). `x.reshape(*batch,
  D // 2, 2)` earlier on the path holds only for an even D, so a later sink's witness may not
  take D = 3 (`counts`; flow/methods.py records each).

Each is kept in the flow pass's environment along the path (flow/environments.py), joined
where paths meet by what both paths show, and carried by every sink (`Sink.path`).
"""
from __future__ import annotations

from math import prod
from typing import Optional, Sequence

from contiglint.layout.model.frozen import record
from contiglint.layout.model.sizes import WILDCARD, Size, is_made
from contiglint.layout.model.witness_sizes import size_value, value_of


@record
class ElementCount:
    """A view or reshape of a tensor of `source` sizes to the shape `target` (without its
    `-1`, if `wildcard`) that the path ran: the products agree (or `target`'s divides
    `source`'s)."""

    source: tuple[Size, ...]
    target: tuple[Size, ...]
    wildcard: bool

    @staticmethod
    def of(source: Sequence[Size], target: Sequence[object]) -> Optional["ElementCount"]:
        """The condition a view of a tensor of `source` sizes to `target` (`Call.sizes`:
        sizes and "-1") states, or None where it states nothing a witness could break: a
        size unknown, more than one `-1`, no name at all, or a name of a size an op made
        (which a witness does not choose)."""
        rest = tuple(size for size in target if size != WILDCARD)
        wildcard = len(rest) < len(target)
        sizes = tuple(source) + rest
        if len(target) - len(rest) > 1 or None in sizes:
            return None
        names = [name for size in sizes for name in size[1]]
        if not names or any(is_made(name) for name in names):
            return None
        return ElementCount(tuple(source), rest, wildcard)

    def broken_by(self, values: dict) -> bool:
        """Whether sizes with these values (name -> int) make the view raise; where a name
        has no value, not."""
        whole, part = _product(self.source, values), _product(self.target, values)
        if whole is None or part is None:
            return False
        if self.wildcard:
            return part == 0 or whole % part != 0
        return whole != part


def _product(sizes: tuple[Size, ...], values: dict) -> Optional[int]:
    parts = [size_value(size, values, "") for size in sizes]
    return None if None in parts else prod(parts)


@record
class PathConditions:
    """The sizes a path to a sink rules out: symbol texts a test shows are not 1 (a witness
    gives them 2 or more), and the element counts of the views and reshapes it ran."""

    above_one: frozenset = frozenset()
    counts: frozenset = frozenset()

    def excludes(self, values: dict) -> bool:
        """Whether an assignment (name -> int, as a witness names sizes) is not on the path:
        a size a test shows above one is below two, or a view the path ran would raise."""
        for text in self.above_one:
            value = value_of(text, values)
            if value is not None and value < 2:
                return True
        return any(count.broken_by(values) for count in self.counts)


NO_CONDITIONS = PathConditions()
