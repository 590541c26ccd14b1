"""The state that runs share (program.py), and what a memoised call's run read and wrote of
it, so a result is reused only while what it read is unchanged."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Optional

from contiglint.layout.flow.classes import ClassInfo
from contiglint.layout.model.path_joins import join
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


class SharedState:
    """`Program`'s reads and writes of the state that runs share: its `classes` (their
    attributes), `hooks`, `closures`, `changes` (how often each piece changed) and `reading`
    (the dependencies of each running call, innermost last)."""

    # Class attributes (by name, whatever the class), the hooks registered on a module
    # attribute, and the environment a nested function closes over are read by one run and
    # changed by another. Each read and each write is noted as a dependency of every running
    # call (and of the learning round), each change counted, so that a memoised
    # result is reused only while what its run read and wrote is as it was: then running it
    # again would read the same and write what is there already.
    def class_attribute(self, info: ClassInfo, name: str) -> Optional[Value]:
        """`info.attribute(name)`, noted as read."""
        self.read(("attribute", name))
        return info.attribute(name, self.classes)

    def hooks_of(self, cls: str, name: str) -> list:
        self.read(("hooks", cls, name))
        return self.hooks.get((cls, name), ())

    def add_hook(self, cls: str, name: str, hook: tuple) -> None:
        hooks = self.hooks.setdefault((cls, name), [])
        if hook not in hooks:
            hooks.append(hook)
            self.version += 1  # calls of the module now run the hook
            self._changed(("hooks", cls, name))
        self.wrote(("hooks", cls, name))

    def closure(self, key: str) -> dict[str, Value]:
        self.read(("closure", key))
        return self.closures.get(key, {})

    def set_closure(self, key: str, env: dict[str, Value]) -> None:
        if self.closures.get(key) != env:
            self._changed(("closure", key))
        self.closures[key] = env
        self.wrote(("closure", key))

    def read(self, what: tuple) -> None:
        if self.reading:
            running = self.reading[-1]
            running.seen.setdefault(what, self.changes.get(what, 0))
            running.reads.add(what)

    def wrote(self, what: tuple) -> None:
        if self.reading:
            self.reading[-1].seen.setdefault(what, self.changes.get(what, 0))

    def _depends(self, done: "Dependencies") -> None:
        """The running call (or round) read and wrote what a finished or reused call did."""
        if self.reading:
            caller = self.reading[-1]
            for what, count in done.seen.items():
                caller.seen.setdefault(what, count)
            caller.reads |= done.reads
            caller.ran |= done.ran
            caller.quiet = caller.quiet and done.quiet

    def unrecorded(self) -> None:
        """The running call met a sink of a recorded kind while sinks are not recorded."""
        if self.reading:
            self.reading[-1].quiet = False

    def _changed(self, what: tuple) -> None:
        self.changes[what] = self.changes.get(what, 0) + 1

    def store_attribute(self, cls: str, name: str, value: Value) -> None:
        info = self.classes.get(cls)
        if info is None or any(c == cls and name in names for c, names in self.shadowed):
            return
        old = info.attrs.get(name)
        new = value if old is None else join(old, value)
        if self.round is not None:
            self.round.stores.append((cls, name, value))
        if new != old:
            info.attrs[name] = new
            self.version += 1
            self._changed(("attribute", name))
        self.wrote(("attribute", name))
