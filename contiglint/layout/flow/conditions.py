"""Correlated branch conditions: an `if` that tests what an earlier `if` tested.

    if not self.channels_first:
        x = x.transpose(1, 2)          # layout broken on one path
    ...
    if self.channels_first:
        y = x.view(b, -1)              # ... and used on the other: never both

Joining the two paths after the first `if` mixes them: the join says `x` may be transposed, and
the second `if` would see that on its body too. So each `if` whose test is a *simple condition*
records what every name it changed held on each side (`Split`), and a later `if` with the same
condition takes each side's values back, on the side where the condition has the same truth.
When one side of the first `if` ended (`return`, `raise`, `continue`), the condition is known on
the path that goes on, so a later test of it has one feasible branch. When both `if`s are in the
same statement list, the statements between them are run again on each side's environment
(without reporting: they were reported on the joined one), so that `x = x * 2` in between
keeps the sides apart; elsewhere, the names unchanged since the first `if` get their side's
values back.

Simple conditions: a name or an attribute chain rooted at a name (`flag`, `self.cfg.causal`),
its `is None` / `is not None`, and `==` / `!=` against a literal or a named constant, each under
any number of `not`. Two equality tests of one subject against different literals, or against
differently named constants, exclude each other (`if self.mode == BINARY: ...` then `if
self.mode == MULTILABEL: ...`): where the later holds, the earlier `if` took its other side.
The record holds only while the condition's names are not assigned again (any assignment, on
any path, counts) and only for names whose value is still the joined one; what is recorded
inside a branch or a loop body is dropped when it ends. Calls that may change an
attribute behind the analysis' back (`self.reset()`) are not seen: the analysis treats
attributes as unchanged by calls everywhere else too.
"""
from __future__ import annotations

import ast
from typing import Optional

from contiglint.layout.syntax.loops import chain
from contiglint.layout.model.frozen import record
from contiglint.layout.model.values import Tensor, Value


@record
class Condition:
    key: str  # the normalised test, e.g. "None:self.mask", "truth:flag", "==1:self.mode"
    positive: bool  # the test is true exactly when the key holds (False under one `not`)
    names: tuple[str, ...]  # the names and attribute keys it reads (every prefix)


def condition_of(test: ast.expr) -> Optional[Condition]:
    positive = True
    while isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        positive, test = not positive, test.operand
    subject, key, named = test, "truth", ()
    if isinstance(test, ast.Compare) and len(test.ops) == 1:
        op, other = test.ops[0], test.comparators[0]
        constant = other.value if isinstance(other, ast.Constant) else None
        if isinstance(op, (ast.Is, ast.IsNot)) and isinstance(other, ast.Constant) and \
                constant is None:
            key, positive = "None", positive != isinstance(op, ast.IsNot)
        elif isinstance(op, (ast.Eq, ast.NotEq)) and isinstance(other, ast.Constant) and \
                isinstance(constant, (bool, int, str)):
            key, positive = f"=={constant!r}", positive != isinstance(op, ast.NotEq)
        elif isinstance(op, (ast.Eq, ast.NotEq)) and (named := _chain(other) or ()):
            # a named constant: `self.mode == MULTICLASS_MODE`, `kind == Mode.A`
            key, positive = f"==@{named[-1]}", positive != isinstance(op, ast.NotEq)
        else:
            return None
        subject = test.left
    names = _chain(subject)
    if names is None:
        return None
    return Condition(f"{key}:{names[-1]}", positive, names + tuple(named))


def is_flag(test: ast.expr) -> bool:
    """A test of a flag's truth (`p`, `not self.fused`): its branches refine no layout."""
    condition = condition_of(test)
    return condition is not None and condition.key.startswith("truth:")


def excludes(key: str, other: str) -> bool:
    """Can the subject of two equality keys not equal both values at once? Two different
    literals (`== "a"`, `== "b"`), or two different named constants (`== BINARY_MODE`,
    `== MULTILABEL_MODE`): a mode the code dispatches on, whose constants the code gives
    different names. A literal and a name may be one value: no."""
    if not (key.startswith("==") and other.startswith("==")) or key == other:
        return False
    value, _, subject = key[2:].rpartition(":")
    value2, _, subject2 = other[2:].rpartition(":")
    return subject == subject2 and value.startswith("@") == value2.startswith("@")


def _chain(node: ast.expr) -> Optional[tuple[str, ...]]:
    """`self.cfg.flag` -> ("self", "self.cfg", "self.cfg.flag"); None for anything else."""
    dotted = chain(node)
    if dotted is None:
        return None
    parts = dotted.split(".")
    return tuple(".".join(parts[:n]) for n in range(1, len(parts) + 1))


@record
class Split:
    """What the names an `if` changed held where its condition's key held (`when_true`) and
    where it did not (`when_false`); None for a side on which no path went on."""
    stamps: tuple[tuple[str, int], ...]  # assignment counts of the condition's names
    when_true: Optional[dict[str, Value]]
    when_false: Optional[dict[str, Value]]
    joined: dict[str, Value]  # the value after the join, for each name recorded
    counts: dict[str, int]  # assignment counts of the recorded names at the join
    where: Optional[tuple[int, int]] = None  # (id of the statement list, index of the `if`)
    paths: Optional[tuple[dict, dict]] = None  # whole environments: key held / did not


def record(condition: Condition, after_yes, after_no, joined, assigned) -> Optional[Split]:
    """The split an `if` on `condition` leaves, from the environments after its two branches
    (None: that branch did not go on) and the joined one."""
    if after_yes is None and after_no is None:
        return None
    changed = {}
    if after_yes is not None and after_no is not None:
        changed = {n for n in after_yes.keys() & after_no.keys() if after_yes[n] != after_no[n]}
        if not changed:
            return None

    def side(env):
        return None if env is None else {n: env[n] for n in changed}

    yes, no = side(after_yes), side(after_no)
    when_true, when_false = (yes, no) if condition.positive else (no, yes)
    paths = None
    if after_yes is not None and after_no is not None:
        paths = (after_yes, after_no) if condition.positive else (after_no, after_yes)
    return Split(tuple((n, assigned.get(n, 0)) for n in condition.names), when_true,
                 when_false, {n: joined[n] for n in changed},
                 {n: assigned.get(n, 0) for n in changed}, None, paths)


def valid(split: Split, assigned) -> bool:
    return all(assigned.get(name, 0) == count for name, count in split.stamps)


def truth(condition: Condition, split: Split) -> Optional[bool]:
    """The test's truth when only one side of the earlier `if` went on."""
    if split.when_true is None:
        return not condition.positive
    if split.when_false is None:
        return condition.positive
    return None


def sides(condition: Condition, split: Split, replayed: tuple) -> tuple:
    """The (test true, test false) environments from the two replayed paths (key held, not)."""
    return replayed if condition.positive else (replayed[1], replayed[0])


def restore(condition: Condition, split: Split, env, test_holds: bool, assigned) -> None:
    """Give back, in the environment of the branch where the test is `test_holds`, the values
    the names had on the matching side of the earlier `if`, for the names unchanged since."""
    if env is None:
        return
    side = split.when_true if test_holds == condition.positive else split.when_false
    if side is None:
        return
    for name, value in side.items():
        if assigned.get(name, 0) == split.counts[name] and name in env and \
                _same(env[name], split.joined[name]):
            env[name] = value


def restore_excluded(split: Split, env, assigned) -> None:
    """Where a test holds that excludes an earlier `if`'s (`excludes`), that `if` took its
    other side: the names it changed get back their values from there."""
    if env is None or split.when_false is None:
        return
    for name, value in split.when_false.items():
        if assigned.get(name, 0) == split.counts[name] and name in env and \
                _same(env[name], split.joined[name]):
            env[name] = value


def _same(a: Value, b: Value) -> bool:
    """Unchanged since the join, but for sizes named on the way (`b, n = x.shape`)."""
    if isinstance(a, Tensor) and isinstance(b, Tensor):
        return (a.kind, a.origin, a.maybe, a.partial) == (b.kind, b.origin, b.maybe, b.partial)
    return a == b
