"""One executable case of an op-table entry, run in torch and through the entry's transfer.

A `Case` names a spelling (method, attribute, function or nn module) and its arguments, given
as Twins and literals; `run` executes it in both worlds and `compare` lists every place the
abstract result contradicts torch. `STATS` counts what ran, for the summary the table test
prints.
"""
from __future__ import annotations

import warnings
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

import torch

from contiglint.layout.model import op_transfers
from contiglint.layout.flow.nn_modules import module_config, module_output, module_width
from contiglint.layout.model.transfer import Call
from contiglint.layout.model.values import Kind, Seq, Tensor
from tests.op_world import ORIGIN, Twin, abstract, concrete, describe, problems, torch_function


@dataclass
class Case:
    form: str  # "method", "attribute", "function" or "module"
    name: str  # method/attribute name, or the function's/module's qualified name
    this: Any  # the receiver / first argument: a Twin, a list of Twins, a literal
    args: tuple = ()
    kwargs: dict = field(default_factory=dict)
    ctor: tuple = ()  # nn module constructor arguments
    ctor_kwargs: dict = field(default_factory=dict)
    may_raise: bool = False  # torch may reject the generated arguments (view, reshape)

    def label(self) -> str:
        args = ", ".join([_show(a) for a in self.args] +
                         [f"{k}={_show(v)}" for k, v in self.kwargs.items()])
        if self.form == "attribute":
            return f"({_show(self.this)}).{self.name}"
        if self.form == "method":
            return f"({_show(self.this)}).{self.name}({args})"
        if self.form == "module":
            ctor = ", ".join([repr(a) for a in self.ctor] +
                             [f"{k}={v!r}" for k, v in self.ctor_kwargs.items()])
            return f"{self.name}({ctor})({_show(self.this)}{', ' if args else ''}{args})"
        return f"{self.name}({_show(self.this)}{', ' if args else ''}{args})"


def _show(value: Any) -> str:
    if isinstance(value, Twin):
        return f"{value.recipe} {tuple(value.real.shape)}"
    if isinstance(value, list):
        return "[" + ", ".join(_show(v) for v in value) + "]"
    return repr(value)


STATS: Counter = Counter()
ENTRIES_RUN: set[str] = set()


def run(case: Case):
    """(torch's result, the transfer's result); torch's result is None when it raised and the
    case allows it."""
    op = _entry(case)
    args = [abstract(a) for a in case.args]
    kwargs = {k: abstract(v) for k, v in case.kwargs.items()}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            real = _execute(case)
        except (RuntimeError, ValueError, IndexError):
            if not case.may_raise:
                raise
            STATS["cases torch rejected (view/reshape targets)"] += 1
            return None, None
    if case.form == "attribute":
        model = op.transfer(Call(case.name, case.this.model, origin=ORIGIN))
    elif case.form == "module":
        config = module_config(case.name, [abstract(a) for a in case.ctor],
                               {k: abstract(v) for k, v in case.ctor_kwargs.items()})
        model = op.transfer(Call(case.name, abstract(case.this), args, kwargs, ORIGIN,
                                 dict(config)))
        model = module_output(case.name, model, module_width(config), abstract(case.this),
                              config)  # as calls.py does
    else:
        model = op.transfer(Call(case.name, abstract(case.this), args, kwargs, ORIGIN))
    return real, model


def _entry(case: Case) -> op_transfers.Op:
    if case.form in ("method", "attribute"):
        return op_transfers.method(case.name)
    if case.form == "module":
        return op_transfers.module(case.name)
    return op_transfers.function(case.name)


def _execute(case: Case):
    if case.form == "attribute":
        return getattr(case.this.real, case.name)
    if case.form == "method":
        return getattr(case.this.real, case.name)(*concrete(case.args), **concrete(case.kwargs))
    if case.form == "module":
        module = torch_function(case.name)(*case.ctor, **case.ctor_kwargs)
        return module(concrete(case.this), *concrete(case.args), **concrete(case.kwargs))
    return torch_function(case.name)(concrete(case.this), *concrete(case.args),
                                     **concrete(case.kwargs))


def compare(model, real, where: str = "result") -> list[str]:
    """Every contradiction between the abstract result and torch's, counting predictions."""
    if isinstance(real, (tuple, list)) and isinstance(model, Seq):
        if model.items is not None and len(model.items) != len(real):
            return [f"{where}: {len(model.items)} items predicted, torch returned {len(real)}"]
        out = []
        for position, item in enumerate(real):
            out += compare(model.item(position), item, f"{where}[{position}]")
        return out
    if isinstance(real, tuple) and isinstance(model, Tensor):
        real = real[0]  # sort/topk/max(dim): the values tensor
        where += ".values"
    if not isinstance(real, torch.Tensor):
        return []
    if not isinstance(model, Tensor):
        STATS["predictions: not a tensor"] += 1
        return []
    key = "UNKNOWN" if model.kind is Kind.UNKNOWN or model.maybe else model.kind.name
    STATS[f"predictions: {key}"] += 1
    wrong = problems(model, real)
    if wrong:
        return [f"{where}: torch {describe(real)}; model {model.kind.name} "
                f"geometry={model.geometry}: {'; '.join(wrong)}"]
    return []
