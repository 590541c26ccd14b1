"""`evolve` is `dataclasses.replace` for the analysis's records: the same record, or the same
error, for every kind of record the flow pass derives."""
from __future__ import annotations

import dataclasses
from functools import cached_property

import pytest

from contiglint.layout.model.frozen import evolve
from contiglint.layout.model.geometry import Geometry
from contiglint.layout.model.sizes import literal
from contiglint.layout.model.values import CONTIGUOUS, Kind, Origin, Seq, Tensor


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
