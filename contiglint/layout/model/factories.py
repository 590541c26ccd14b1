"""Factories: fresh contiguous tensors whose sizes come from the arguments (`torch.zeros(2,
3)`, `x.new_empty(shape)`, `torch.full(size, v)`), and the one-dim (`arange`, `linspace`,
`randperm`) and two-dim (`eye`) ones, whose sizes are the arguments' counts where those are
literals or names."""
from __future__ import annotations

import math
from typing import Optional

from contiglint.layout.model.frozen import evolve
from contiglint.layout.model.geometry import Geometry
from contiglint.layout.model.reshape_views import led_sizes
from contiglint.layout.model.sizes import Size, literal, symbol
from contiglint.layout.model.transfer import Call, fresh, with_memory_format
from contiglint.layout.model.values import (CONTIGUOUS, Const, Dims, IntVal, Kind, Seq, Tensor,
                                            Value)


def factory(call: Call) -> Tensor:
    """`torch.zeros(2, 3)`, `torch.randn((b, n))`, `x.new_zeros(...)`: fresh, sizes from args."""
    sizes = call.sizes(0, "size")
    if sizes is None and "size" not in call.kwargs and "memory_format" not in call.kwargs:
        led = led_sizes(call.args)
        if led is not None:  # `torch.ones(*batch, n, d)`: `batch`'s dims lead, any number
            return Tensor(Kind.CONTIGUOUS, None, min_rank=len(led[1]),
                          assumed=Geometry.contiguous(led[1]), lead=led[0])
    if sizes is None or any(s == "-1" for s in sizes):
        return CONTIGUOUS
    tensor = fresh(call, sizes)
    return with_memory_format(call, tensor)


def function_factory(call: Call) -> Tensor:
    """Factories whose first argument is a size too (`torch.zeros(2, 3)` -> this == 2)."""
    return factory(evolve(call, args=[call.this] + call.args))


def sized_factory(call: Call) -> Tensor:
    """`torch.full(size, value)`, `torch.randint(low, high, size)`: the size is the one tuple
    argument (or `size=`); the other arguments are values."""
    size = call.kwargs.get("size")
    if size is None:
        size = next((a for a in [call.this] + call.args if isinstance(a, (Seq, Dims))), None)
    if size is None:
        return CONTIGUOUS
    return factory(evolve(call, args=[size], kwargs={k: v for k, v in call.kwargs.items()
                                                      if k != "size"}))


def vector_factory(call: Call) -> Tensor:
    """arange/linspace/logspace/randperm: one dim, of the size the arguments give where they
    give it (`vector_length`)."""
    return fresh(call, [vector_length(call)])


def vector_length(call: Call) -> Size:
    """The number of elements: `arange(n)` and `randperm(n)` have n (an int), `arange(a, b,
    s)` of literal numbers ceil((b - a) / s) (torch raises where that is negative),
    `linspace(a, b, n)` and `logspace(a, b, n)` have n (`steps=`)."""
    name = call.name.rsplit(".", 1)[-1]
    given = [call.this] + list(call.args)
    if name in ("linspace", "logspace"):
        steps = call.kwargs.get("steps", given[2] if len(given) > 2 else None)
        return steps.size if isinstance(steps, IntVal) else None
    if call.kwargs.keys() & {"start", "end", "step"} or not 1 <= len(given) <= 3 or \
            name == "randperm" and len(given) != 1:
        return None
    if len(given) == 1 and isinstance(given[0], IntVal) and given[0].size is not None and \
            given[0].size[1]:
        return given[0].size  # a name: the caller's count (torch raises on a negative one)
    numbers = [_number(g) for g in given]
    if None in numbers or len(numbers) == 3 and numbers[2] == 0:
        return None
    start, end, step = [0] + numbers + [1] if len(numbers) == 1 else \
        numbers + [1] if len(numbers) == 2 else numbers
    count = math.ceil((end - start) / step)
    return literal(count) if count >= 0 else None  # torch raises on a negative count


def _number(value: Value) -> Optional[float]:
    """The number a literal argument holds (an int or a float), or None."""
    if isinstance(value, IntVal):
        return value.size[0] if value.size is not None and not value.size[1] else None
    if isinstance(value, Const) and isinstance(value.value, (int, float)) and \
            not isinstance(value.value, bool):
        return value.value
    return None


def matrix_factory(call: Call) -> Tensor:
    """eye/tril_indices/triu_indices: two dims whatever the arguments; `eye(n)` is (n, n) and
    `eye(n, m)` (n, m), and the indices are two rows."""
    name = call.name.rsplit(".", 1)[-1]
    given = ([call.this] if call.this is not None else []) + list(call.args)
    if name != "eye":
        return fresh(call, [literal(2), _index_count(name, given, call.kwargs)])
    n = call.kwargs["n"] if "n" in call.kwargs else given[0] if given else None
    if not isinstance(n, IntVal) and "n" not in call.kwargs and call.owner and \
            call.owner.isidentifier():
        n = IntVal(symbol(call.owner))  # `eye(n)` of a parameter n: n by n all the same
    m = given[1] if len(given) > 1 else call.kwargs.get("m", n)
    return fresh(call, [v.size if isinstance(v, IntVal) else None for v in (n, m)])


def _index_count(name: str, given: list, kwargs: dict) -> Size:
    """How many (row, col) pairs `tril_indices(row, col, offset)` (or triu's) lists, where
    the arguments are literal ints."""
    values = [_number(v) for v in given + [kwargs[k] for k in ("row", "col", "offset")
                                            if k in kwargs]]
    if len(values) == 2:
        values.append(0)
    if len(values) != 3 or any(not isinstance(v, int) for v in values):
        return None
    row, col, offset = values
    if name == "tril_indices":
        return literal(sum(max(0, min(col, i + offset + 1)) for i in range(row)))
    return literal(sum(max(0, col - max(0, i + offset)) for i in range(row)))
