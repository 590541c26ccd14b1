"""What a memoised call's run read and wrote of the state that runs share (program.py), so a
result is reused only while what it read is unchanged."""
from __future__ import annotations

from dataclasses import dataclass, field

from contiglint.layout.model.values import Value

# State a memoised result is reused across changes of, as before dependencies were recorded:
# a nested function's closure is rewritten by every run of the function that defines it, so
# depending on it would make each run of that function invalidate the results of the others
# (a cascade measured at 3x the analysis time on one real module). It still counts for a
# learning round (`Program._settled`).
UNMEMOISED = frozenset({"closure"})


@dataclass
class Dependencies:
    """What one call's run (its callees' included) read and wrote of the state that runs
    share: `seen` maps each piece to how often it had changed when the run first touched it,
    `reads` holds the pieces it read. `ran`: the functions it ran (itself included); `quiet`:
    it met no sink of a kind the program records (see `Program.call`)."""

    seen: dict[tuple, int] = field(default_factory=dict)
    reads: set[tuple] = field(default_factory=set)
    ran: set[str] = field(default_factory=set)
    quiet: bool = True


@dataclass
class Round:
    """One round of learning a class's attributes (`Program._learn_attributes`): what its
    runs read and wrote of the state that runs share (the bottom of `Program.reading` while
    it runs), and every attribute store they made (a store that a running
    `super().__init__()` shadows is not made)."""

    touched: Dependencies = field(default_factory=Dependencies)
    stores: list[tuple[str, str, Value]] = field(default_factory=list)
