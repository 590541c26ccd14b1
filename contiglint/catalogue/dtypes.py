"""Dtypes: their names, their aliases and their element sizes, and the conversion methods.

One table: `ELEMENT_SIZE` is indexed by torch's canonical dtype names and by the aliases
(`torch.float` is `torch.float32`); `CONVERSIONS` says which dtype each conversion method
(`.float()`, `.half()`) produces.
"""
from __future__ import annotations

from typing import Optional

# canonical name -> bytes per element (torch.<name>.itemsize)
_SIZES = {"float32": 4, "float64": 8, "float16": 2, "bfloat16": 2, "int8": 1, "int16": 2,
          "int32": 4, "int64": 8, "uint8": 1, "uint16": 2, "uint32": 4, "uint64": 8, "bool": 1,
          "complex64": 8, "complex128": 16, "complex32": 4, "float8_e4m3fn": 1,
          "float8_e5m2": 1, "float8_e4m3fnuz": 1, "float8_e5m2fnuz": 1, "float8_e8m0fnu": 1,
          "float4_e2m1fn_x2": 1, "bits8": 1, "bits16": 2, "bits1x8": 1, "bits2x4": 1,
          "bits4x2": 1, "qint8": 1, "quint8": 1, "qint32": 4, "quint4x2": 1, "quint2x4": 1,
          **{f"{kind}{bits}": 1 for kind in ("int", "uint") for bits in range(1, 8)}}
# alias -> canonical name (`torch.float is torch.float32`)
ALIASES = {"float": "float32", "double": "float64", "half": "float16", "long": "int64",
           "int": "int32", "short": "int16", "cfloat": "complex64", "cdouble": "complex128",
           "chalf": "complex32", "bit": "uint1"}
ELEMENT_SIZE: dict[str, int] = {**_SIZES, **{a: _SIZES[c] for a, c in ALIASES.items()}}
DTYPES = frozenset(f"torch.{name}" for name in ELEMENT_SIZE)  # `torch.float16` as written

# conversion method -> the dtype it converts to (`x.half()` is `x.to(torch.float16)`)
CONVERSIONS = {"float": "float32", "double": "float64", "half": "float16",
               "bfloat16": "bfloat16", "int": "int32", "long": "int64", "short": "int16",
               "bool": "bool", "byte": "uint8", "char": "int8"}

FLOAT_FACTORIES = frozenset({"torch.zeros", "torch.ones", "torch.empty", "torch.rand",
                             "torch.randn", "torch.full"})  # default dtype float32


def canonical(name: str) -> str:
    """"float" -> "float32"; a canonical name is returned as it is."""
    return ALIASES.get(name, name)


def element_size(name: str) -> Optional[int]:
    """Bytes per element of a dtype given by name (`float16`, `torch.half`), or None."""
    return ELEMENT_SIZE.get(name.rsplit(".", 1)[-1])
