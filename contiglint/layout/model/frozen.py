"""`evolve`: `dataclasses.replace` for the analysis's frozen records, at a sixth of its cost.

The flow pass derives values from values millions of times (a tensor that is now maybe
non-contiguous, a geometry with one axis changed). `dataclasses.replace` builds a keyword
dict and calls the generated `__init__`, which sets each field through `object.__setattr__`.
For a record whose `__init__` only assigns its fields (no `__post_init__`), copying the
instance's fields and applying the changes gives the same record.
"""
from __future__ import annotations

import dataclasses
import functools
from typing import Any, TypeVar

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
