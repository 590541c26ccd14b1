"""The environments of the flow pass (name -> abstract value; None: no path reaches here),
and how two paths' environments join."""
from __future__ import annotations

from typing import Optional

from contiglint.layout.model.path_conditions import NO_CONDITIONS, ElementCount, PathConditions
from contiglint.layout.model.path_joins import join
from contiglint.layout.model.values import OPAQUE, Const, Value

Env = Optional[dict[str, Value]]
LOOP_ROUNDS = 3
# the entry for the size symbols a test on the path shows are not 1 (`if x.size(1) > 1:`), a
# Const of a frozenset: branch_statements.py writes it, each sink carries it (`Sink.path`)
ABOVE_ONE = "#above one"
# the entry for the element counts of the views and reshapes the path ran
# (path_conditions.ElementCount), a Const of a frozenset: methods.py writes it, each sink
# carries it (`Sink.path`)
COUNTS = "#element counts"


# the entry for the size symbols a test on the path shows are 1 (`if x.size(0) == 1:`), a
# Const of a frozenset: a test binds them in every value it reaches (path_facts.bind_size),
# and a size read later under that name is 1 too (flow/subscripts.py)
AT_ONE = "#at one"


def sizes_at_one(env: Env) -> frozenset:
    """The size symbols a test on the path to here shows are 1."""
    return _facts(env, AT_ONE)


def sizes_above_one(env: Env) -> frozenset:
    """The size symbols a test on the path to here shows are not 1."""
    return _facts(env, ABOVE_ONE)


def path_conditions(env: Env) -> PathConditions:
    """The sizes the path to here rules out: those a test shows are not 1, and those under
    which a view or reshape it ran would raise."""
    above, counts = sizes_above_one(env), _facts(env, COUNTS)
    return PathConditions(above, counts) if above or counts else NO_CONDITIONS


def counted(env: Env, count: ElementCount) -> None:
    """Note in `env` that the path ran a view or reshape whose element counts agree."""
    if env is not None:
        env[COUNTS] = Const(_facts(env, COUNTS) | {count})


def _facts(env: Env, key: str) -> frozenset:
    found = (env or {}).get(key)
    return found.value if isinstance(found, Const) else frozenset()


# path facts (frozensets): where two paths meet, what both show
_PATH_FACTS = (ABOVE_ONE, AT_ONE, COUNTS)


def truth_of(value: Value) -> Optional[bool]:
    """The truth of a condition the analysis knows (a literal flag passed by the caller)."""
    if isinstance(value, Const) and isinstance(value.value, (bool, int, str, type(None))):
        return bool(value.value)
    return None


def join_envs(a: Env, b: Env) -> Env:
    if a is None:
        return None if b is None else dict(b)
    if b is None:
        return dict(a)
    out = {}
    for name, value in a.items():
        other = b.get(name, _UNBOUND)
        if other is value:  # unchanged on both paths: most names
            out[name] = value
        elif name in _PATH_FACTS:
            out[name] = Const(_facts(a, name) & _facts(b, name))
        elif other is _UNBOUND:
            out[name] = join(value, OPAQUE)  # bound on one path only
        else:
            out[name] = join(value, other)
    for name, value in b.items():
        if name not in a and name not in _PATH_FACTS:
            out[name] = join(value, OPAQUE)
    return out


_UNBOUND = object()
