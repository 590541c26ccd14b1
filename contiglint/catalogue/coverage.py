"""How much of torch the catalogue covers: torch's public ops, and which of them it models.

`torch_ops()` lists torch's own public ops (from `torch.overrides`, which enumerates every
function and Tensor method that `__torch_function__` can override) as the catalogue spells them:
a Tensor method or attribute by its name (`transpose`, `T`), a function by its qualified name
(`torch.transpose`, `torch.nn.functional.gelu`, `torch.linalg.svd`). `modelled(name)` says
whether the catalogue has a fact about it; `unmodelled.REASONS` says why the rest are left out.
Used by tests/test_catalogue.py and benchmarks/catalogue_coverage.py; needs torch.
"""
from __future__ import annotations

from contiglint.catalogue import collectives, contracts, dtypes, inplace, ops, sinks, unmodelled

NAMESPACES = {"torch": "torch.", "torch.functional": "torch.", "torch.nn.functional":
              "torch.nn.functional.", "torch.linalg": "torch.linalg.", "torch.fft": "torch.fft.",
              "torch.special": "torch.special."}


def torch_ops() -> frozenset[str]:
    """Torch's public tensor methods, attributes and functions, as the catalogue spells them."""
    import torch
    from torch.overrides import get_overridable_functions

    found: set[str] = set()
    for namespace, functions in get_overridable_functions().items():
        if namespace is torch.Tensor:
            found.update(f.__name__ for f in functions if not f.__name__.startswith("_"))
            continue
        prefix = NAMESPACES.get(getattr(namespace, "__name__", None))
        if prefix is None:
            continue
        for function in functions:
            name = function.__name__  # torch.fft.fft is named "fft_fft", linalg.svd "linalg_svd"
            name = name.removeprefix(namespace.__name__.rsplit(".", 1)[-1] + "_") \
                if not hasattr(namespace, name) else name
            if not name.startswith("_") and hasattr(namespace, name):
                found.add(prefix + name)
    found.update(name for name in dir(torch.Tensor) if not name.startswith("_") and type(
        getattr(torch.Tensor, name)).__name__ in ("getset_descriptor", "property"))
    return frozenset(found)


def catalogue_names() -> frozenset[str]:
    """Every op name the catalogue has a fact about, spelt as `torch_ops()` spells them."""
    names: set[str] = set(ops.METHODS) | set(ops.FUNCTIONS) | set(ops.MODULES)
    names |= inplace.TENSOR_METHODS | inplace.NOT_WRITES
    for spec in sinks.SPECS:
        names.update(spec.methods + spec.functions)
    names.update(sinks.LAYOUT_QUERIES + sinks.BUFFER_EXPORTS)
    names.update(dtypes.CONVERSIONS)
    names |= ops.COPIES_IF_NEEDED | ops.LAYOUT_COPY_FUNCTIONS | ops.NOT_TENSOR_ATTRIBUTES
    names |= contracts.RAW_METHODS | contracts.GUARD_CHECKS | contracts.CHECK_FUNCTIONS
    names.update(sinks.DISTRIBUTED + op for op in collectives.COLLECTIVES)
    names |= ops.SHAPE_QUERIES | {ops.GRADIENT}
    names.update("torch." + name for name in ops.NOT_TENSOR_FUNCTIONS)
    return frozenset(names)


_NAMES = catalogue_names()


def modelled(name: str) -> bool:
    """A fact in the catalogue, or a rule of it: a function named like an in-place op writes its
    first argument, `torch.is_...` returns a bool."""
    return name in _NAMES or ("." in name and inplace.is_inplace(name)) or \
        name.startswith("torch.is_")


def explained(name: str) -> bool:
    """Modelled, or listed among the unmodelled ops with a reason."""
    return modelled(name) or name in unmodelled.NAMES
