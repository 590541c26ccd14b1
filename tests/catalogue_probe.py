"""Run one torch op on a transposed tensor and say what it returned, in a word.

`probe(name)` calls the op named as the catalogue spells it (`log2` is `x.log2()`, `T` is
`x.T`, `torch.log2` is `torch.log2(x)`) with a transposed float32 (4, 3) tensor `x` as its first
argument, alone, then with a second (4, 3) tensor, then with the dim 0 (`FORMS`), and
classifies the result of the first form that runs: "keeps-layout" (a tensor of the input's
shape and strides), "contiguous" (a contiguous tensor of any shape), "non-contiguous" (another
layout), "no-tensor" (not a tensor), followed by the form; "raises" when no form runs (it needs
other arguments or another input). tests/test_catalogue.py
checks the measured groups of contiglint/catalogue/unmodelled.py with it; run as a script it
prints each unmodelled op's group, which is how that file's groups were first drawn up.
"""
from __future__ import annotations

import operator
import warnings

import torch


def transposed() -> torch.Tensor:
    return (torch.arange(12, dtype=torch.float32).reshape(3, 4) / 13 + 0.05).t()


# the argument lists tried, in order, after the transposed tensor: none, a second tensor of the
# same shape (contiguous), a dim
FORMS = {"x": lambda: (), "x,y": lambda: (torch.rand(4, 3) + 0.05,), "x,0": lambda: (0,)}


def call(name: str, form: str):
    x = transposed()
    if "." not in name:
        member = getattr(x, name)
        if not callable(member) or isinstance(member, torch.Tensor):
            if form != "x":
                raise TypeError("an attribute takes no arguments")
            return member
        return member(*FORMS[form]())
    return operator.attrgetter(name.removeprefix("torch."))(torch)(x, *FORMS[form]())


def classify(result, x: torch.Tensor) -> str:
    if isinstance(result, (tuple, list)) and result and all(
            isinstance(r, torch.Tensor) for r in result):
        kinds = {classify(r, x) for r in result}
        return kinds.pop() if len(kinds) == 1 else "non-contiguous"
    if not isinstance(result, torch.Tensor):
        return "no-tensor"
    if result.layout is not torch.strided:
        return "non-contiguous"
    if result.shape == x.shape and result.stride() == x.stride():
        return "keeps-layout"
    return "contiguous" if result.is_contiguous() else "non-contiguous"


def probe(name: str) -> str:
    """"<kind> <form>" for the first argument form that runs, or "raises"."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for form in FORMS:
            try:
                return f"{classify(call(name, form), transposed())} {form}"
            except Exception:  # an op that needs other arguments: any error at all
                continue
    return "raises"


if __name__ == "__main__":
    from contiglint.catalogue import coverage

    for op in sorted(coverage.torch_ops()):
        if not coverage.modelled(op):
            print(probe(op).replace(" ", "|"), op)
