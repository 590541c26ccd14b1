"""Shared by the mutant cases: run the original and the mutated statement, print the outcome.

A case is `fn(mutant, **sizes)`: the few lines of the real function that shape the tensor, with
the mutated statement taken when `mutant` is true, returning what the function goes on to use
(a tensor, a shape, or the values a raw read sees). `decide` runs it on every realistic input:
the mutant is a `bug` when it raises where the original did not, or returns different values,
for some input; `harmless` otherwise. The original raising is a broken case, not a label.
"""
from __future__ import annotations

import sys

import torch


def raw(t: torch.Tensor) -> torch.Tensor:
    """What a kernel that takes `data_ptr()` and assumes a dense row-major layout reads."""
    flat = torch.empty(0, dtype=t.dtype)
    return flat.set_(t.untyped_storage(), t.storage_offset(), (t.numel(),)).clone()


def same(a, b) -> bool:
    if isinstance(a, torch.Tensor) or isinstance(b, torch.Tensor):
        return (isinstance(a, torch.Tensor) and isinstance(b, torch.Tensor)
                and a.shape == b.shape and a.dtype == b.dtype
                and bool(torch.equal(a, b) or (a.isnan().any() and torch.allclose(
                    a, b, equal_nan=True))))
    if isinstance(a, (tuple, list)) and isinstance(b, (tuple, list)):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b))
    return a == b


def reshaped(mutant):
    """The reshape-to-view operator at a site: `t.view(*s)` in the mutant, `t.reshape(*s)` in
    the original."""
    return (lambda t, *s: t.view(*s)) if mutant else (lambda t, *s: t.reshape(*s))


def picked(mutant, which, name):
    """`reshaped` at the site `name` of a case with several: the mutated one only where it is
    the site `which`."""
    return reshaped(mutant and which == name)


def _short(inputs: dict) -> str:
    return ", ".join(f"{k}={v}" for k, v in inputs.items()) or "as called"


def decide(name: str, fn, inputs: list[dict]) -> str:
    """Run the case on every input; print one line and return 'bug' or 'harmless' ('broken'
    when the original itself raises: the case does not copy the code right)."""
    for sizes in inputs:
        torch.manual_seed(0)  # both runs see the same random inputs and weights
        try:
            original = fn(False, **sizes)
        except Exception as error:
            print(f"{name}: broken: the original raises for {_short(sizes)}: "
                  f"{type(error).__name__}: {str(error).splitlines()[0][:100]}")
            return "broken"
        torch.manual_seed(0)
        try:
            mutated = fn(True, **sizes)
        except Exception as error:  # the point: does the mutated statement raise?
            print(f"{name}: bug: mutant raises for {_short(sizes)}: {type(error).__name__}: "
                  f"{str(error).splitlines()[0][:100]}")
            return "bug"
        if not same(original, mutated):
            print(f"{name}: bug: mutant gives different values for {_short(sizes)}")
            return "bug"
    print(f"{name}: harmless: same result for {'; '.join(_short(s) for s in inputs)}")
    return "harmless"


def run_all(cases: dict) -> dict[str, str]:
    """Decide every case of a module (the names given on the command line, else all)."""
    chosen = [a for a in sys.argv[1:] if not a.startswith("-")] or list(cases)
    return {name: decide(name, *cases[name]) for name in chosen}
