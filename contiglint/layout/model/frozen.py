"""The analysis's frozen records, made cheaply: `record` declares one, `evolve` derives one.

`record` is `@dataclass(frozen=True)` whose `__init__` writes the fields into the instance's
dict instead of setting each through `object.__setattr__` (which a frozen dataclass's own
`__init__` does, since its `__setattr__` raises): the same record at under half the cost. The
flow pass makes about a hundred thousand of them per few hundred modules (tensors, geometries,
axes, origins, call sites, sinks).

`evolve`: `dataclasses.replace` for these records, at a sixth of its cost.

The flow pass derives values from values millions of times (a tensor that is now maybe
non-contiguous, a geometry with one axis changed). `dataclasses.replace` builds a keyword
dict and calls the generated `__init__`, which sets each field through `object.__setattr__`.
For a record whose `__init__` only assigns its fields (no `__post_init__`), copying the
instance's fields and applying the changes gives the same record.
"""
from __future__ import annotations

import dataclasses
import functools
from typing import Any, Callable, TypeVar

T = TypeVar("T")
_PLAIN: dict[type, bool] = {}  # class -> may its instances be copied field by field?


def evolve(record: T, **changes: Any) -> T:
    """`dataclasses.replace(record, **changes)`, the same record, made without `__init__`
    where that changes nothing (falls back to `replace` elsewhere, and for a name that is
    not an init field, which `replace` rejects)."""
    cls = record.__class__
    plain = _PLAIN.get(cls)
    if plain is None:
        plain = _PLAIN[cls] = _plain(cls)
    if not plain or not changes.keys() <= cls.__dataclass_fields__.keys():
        return dataclasses.replace(record, **changes)
    copy = object.__new__(cls)
    fields = copy.__dict__
    fields.update(record.__dict__)
    fields.update(changes)
    return copy


def _plain(cls: type) -> bool:
    """A dataclass whose instances hold their init fields and nothing else: no
    `__post_init__` (which could set more), no `cached_property` (whose value lives in the
    instance's dict), no slots, no field outside `__init__`."""
    return (dataclasses.is_dataclass(cls) and not hasattr(cls, "__post_init__")
            and "__slots__" not in vars(cls)
            and not any(isinstance(member, functools.cached_property)
                        for klass in cls.__mro__ for member in vars(klass).values())
            and all(f.init for f in dataclasses.fields(cls)))


def record(cls: type[T] | None = None, /, **options: Any) -> Any:
    """`@dataclass(frozen=True, **options)`, with an `__init__` that takes the same arguments
    and makes the same record by writing the instance's dict. A class whose `__init__` does
    more than assign its fields (see `_plain`) keeps the dataclass's own."""

    def make(klass: type[T]) -> type[T]:
        klass = dataclasses.dataclass(frozen=True, **options)(klass)
        initvar = getattr(dataclasses, "_FIELD_INITVAR", None)
        if _plain(klass) and not any(f._field_type is initvar  # type: ignore[attr-defined]
                                     for f in klass.__dataclass_fields__.values()):
            klass.__init__ = _assigning_init(klass)  # type: ignore[misc]
        return klass

    return make if cls is None else make(cls)


class _Factory:
    """The default of a field made by a factory, as the dataclass's own signature shows it."""

    def __repr__(self) -> str:
        return "<factory>"


_FACTORY = _Factory()


def _assigning_init(cls: type) -> Callable[..., None]:
    """An `__init__` with the dataclass's signature (its order, defaults, default factories and
    keyword-only fields) whose body writes each field into `self.__dict__`."""
    parameters, body = [], []
    scope: dict[str, Any] = {"_FACTORY": _FACTORY}
    keyword_only = False
    for number, f in enumerate(dataclasses.fields(cls)):
        if f.kw_only and not keyword_only:
            parameters.append("*")
            keyword_only = True
        if f.default is not dataclasses.MISSING:
            scope[f"_default{number}"] = f.default
            parameters.append(f"{f.name}=_default{number}")
            body.append(f"fields[{f.name!r}] = {f.name}")
        elif f.default_factory is not dataclasses.MISSING:
            scope[f"_factory{number}"] = f.default_factory
            parameters.append(f"{f.name}=_FACTORY")
            body.append(f"fields[{f.name!r}] = _factory{number}() if {f.name} is _FACTORY "
                        f"else {f.name}")
        else:
            parameters.append(f.name)
            body.append(f"fields[{f.name!r}] = {f.name}")
    source = (f"def __init__(self, {', '.join(parameters)}):\n    fields = self.__dict__\n" +
              "".join(f"    {line}\n" for line in body))
    exec(compile(source, f"<record {cls.__qualname__}>", "exec"), scope)
    init = scope["__init__"]
    init.__annotations__ = {**{f.name: f.type for f in dataclasses.fields(cls)}, "return": None}
    init.__qualname__ = f"{cls.__qualname__}.__init__"
    init.__module__ = cls.__module__
    return init
