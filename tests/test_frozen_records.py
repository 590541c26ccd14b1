"""`evolve` is `dataclasses.replace` for the analysis's records: the same record, or the same
error, for every kind of record the flow pass derives. `record` is `@dataclass(frozen=True)`:
the same arguments make the same record, and the same mistakes the same errors."""
from __future__ import annotations

import dataclasses
import inspect
from functools import cached_property

import pytest

from contiglint.layout.flow.conditions import Condition
from contiglint.layout.model.frozen import evolve, record
from contiglint.layout.model.geometry import Axis, Geometry
from contiglint.layout.model.indexing import Index
from contiglint.layout.model.sizes import literal
from contiglint.layout.model.values import CONTIGUOUS, Kind, Origin, Seq, Tensor
from contiglint.layout.sinks.records import CallSite, ViewSink


def _records():
    transposed = Geometry.contiguous([literal(2), literal(3), literal(4)])
    return [
        (Tensor(Kind.PERMUTED), {"maybe": True}),
        (CONTIGUOUS, {"kind": Kind.UNKNOWN, "min_rank": 3}),
        (Tensor.of(transposed, Origin(".t()", 1, 1)), {"maybe": True, "partial": None}),
        (transposed, {"axes": transposed.axes[::-1]}),
        (transposed.axes[0], {}),
        (Seq(each=CONTIGUOUS), {"chained": True}),
    ]


@pytest.mark.parametrize("record, changes", _records())
def test_evolve_makes_what_replace_makes(record, changes):
    made = evolve(record, **changes)
    expected = dataclasses.replace(record, **changes)
    assert made == expected and type(made) is type(expected)
    assert vars(made) == vars(expected)
    assert hash(made) == hash(expected)
    assert made is not record


def test_evolve_rejects_what_replace_rejects():
    with pytest.raises(TypeError):
        evolve(CONTIGUOUS, no_such_field=1)


@dataclasses.dataclass(frozen=True)
class _Normalised:
    name: str

    def __post_init__(self) -> None:
        object.__setattr__(self, "name", self.name.lower())


@dataclasses.dataclass(frozen=True)
class _Cached:
    n: int

    @cached_property
    def double(self) -> int:
        return 2 * self.n


def test_evolve_runs_init_where_init_does_more_than_assign():
    assert evolve(_Normalised("a"), name="B").name == "b"
    cached = _Cached(1)
    assert cached.double == 2
    assert evolve(cached, n=5).double == 10


# --- `record`: `@dataclass(frozen=True)` with an `__init__` that writes the instance's dict ---

def _twins(**options):
    """The same class made by `record` and by `dataclasses.dataclass(frozen=True)`."""
    def body():
        return {"__annotations__": {"size": "int", "base": "tuple", "span": "str",
                                    "seen": "list"},
                "span": "full", "seen": dataclasses.field(default_factory=list, compare=False)}
    fast = record(**options)(type("Fast", (), body()))
    plain = dataclasses.dataclass(frozen=True, **options)(type("Plain", (), body()))
    return fast, plain


@pytest.mark.parametrize("options", [{}, {"kw_only": True}])
def test_record_takes_and_makes_what_the_dataclass_does(options):
    fast, plain = _twins(**options)
    for args, kwargs in [((), {"size": 2, "base": (0,)}),
                         ((), {"size": 2, "base": (0,), "span": "cut", "seen": [1]})] + \
            ([] if options else [((2, (0,)), {}), ((2, (0,), "step"), {"seen": [3]})]):
        made, expected = fast(*args, **kwargs), plain(*args, **kwargs)
        assert vars(made) == vars(expected)
        assert list(vars(made)) == list(vars(expected))  # the fields' order
        assert repr(made).replace("Fast", "Plain") == repr(expected)
        assert made == fast(*args, **kwargs) and hash(made) == hash(fast(*args, **kwargs))
    assert fast(size=1, base=()).seen is not fast(size=1, base=()).seen  # a fresh list each
    made_params = inspect.signature(fast).parameters.values()
    expected_params = inspect.signature(plain).parameters.values()
    assert [(p.name, p.kind, repr(p.default)) for p in made_params] == \
        [(p.name, p.kind, repr(p.default)) for p in expected_params]


@pytest.mark.parametrize("options", [{}, {"kw_only": True}])
def test_record_rejects_what_the_dataclass_rejects(options):
    fast, plain = _twins(**options)
    for kind in (fast, plain):
        with pytest.raises(TypeError):
            kind(size=1)  # `base` missing
        with pytest.raises(TypeError):
            kind(size=1, base=(), colour="red")
        with pytest.raises(dataclasses.FrozenInstanceError):
            kind(size=1, base=()).size = 2
    if options:
        with pytest.raises(TypeError):
            fast(1, ())  # keyword-only


def test_record_keeps_the_dataclass_init_where_init_does_more():
    @record
    class Normalised:
        name: str

        def __post_init__(self) -> None:
            object.__setattr__(self, "name", self.name.lower())

    assert Normalised("A").name == "a"


def test_the_analysis_records_are_made_by_assigning():
    """The flow pass's records take the cheap `__init__` (a change that made them fall back to
    the dataclass's own would only show in the bench), and it makes the same record."""
    for cls in (Tensor, Origin, Seq, Axis, Geometry, Index, CallSite, ViewSink, Condition):
        assert cls.__init__.__code__.co_filename.startswith("<record"), cls
    tensor = Tensor(Kind.PERMUTED, maybe=True)
    assert tensor == dataclasses.replace(CONTIGUOUS, kind=Kind.PERMUTED, maybe=True)
    assert [f.name for f in dataclasses.fields(Tensor)] == list(vars(tensor))
