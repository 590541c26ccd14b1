"""Names for what torch did: which ops are views, moves, raw-memory reads, in-place writes
or copies-when-needed, which error messages are layout errors, and the few facts about the
program text the checks need. Shared by the claims and the fixed-program check.
"""
from __future__ import annotations

import ast
import re
from dataclasses import dataclass

from contiglint.catalogue import ops, sinks
from contiglint.catalogue.collectives import COLLECTIVES, gloo_safe
from contiglint.catalogue.inplace import writes_data
from contiglint.verify.observation import Observation

VIEW_ERROR = re.compile(r"view size is not compatible|must be 1 to view|spans across two "
                        r"contiguous subspaces")
OVERLAP_ERROR = re.compile(r"more than one element of the written-to tensor")
CONTIGUITY_ERROR = re.compile(r"(has to|must) be contiguous|Tensors must be contiguous")
LAYOUT_ERROR = re.compile("|".join(p.pattern for p in (VIEW_ERROR, OVERLAP_ERROR,
                                                       CONTIGUITY_ERROR)))

VIEWS = sinks.runtime("view")
RAW_MEMORY = sinks.runtime("raw_memory") | {f"Tensor.{m}" for m in sinks.BUFFER_EXPORTS}
REGISTRATIONS = sinks.runtime("buffer") | sinks.runtime("parameter")
LAYOUT_QUERIES = sinks.runtime("layout_branch")
TRACERS = sinks.runtime("trace")
# ops that return a view (or self) when they can and a copy otherwise (CTG111)
MAYBE_COPIES = ops.runtime_names(ops.COPIES_IF_NEEDED)


def gloo_hazard(name: str) -> bool:
    """A collective (by its short name) that fails or corrupts a non-contiguous tensor on gloo,
    which a CPU run can show: what the static CTG107 reports that the verifier can confirm."""
    return name in COLLECTIVES and not gloo_safe(name)


is_inplace = writes_data  # the checks ask whether an op wrote the tensor's elements


def copied(observation: Observation) -> bool:
    """The op returned new memory rather than its receiver's (a copy, not a view or self)."""
    receiver, result = observation.receiver, observation.result
    return receiver is not None and result is not None and result.storage_ptr is not None \
        and result.storage_ptr != receiver.layout.storage_ptr


@dataclass(frozen=True)
class SourceFacts:
    """What the checks need from the program text: the lines whose statement drops the value
    of its expression (`x.contiguous().add_(1)` as a statement, `f(x)[0] = v`), so that an
    in-place write into a temporary there is lost; the layout guards of its functions."""

    discarded: frozenset = frozenset()
    # line -> kind ("full", "inner", "stride") of each layout guard the contract pass learned
    # (`assert x.is_contiguous()`, `torch._check(...)`, `if x.stride(-1) != 1: raise`)
    guards: tuple[tuple[int, str], ...] = ()

    @staticmethod
    def of(text: str) -> "SourceFacts":
        from contiglint.layout.contracts.summary import summarize

        try:
            tree = ast.parse(text)
        except (SyntaxError, ValueError):
            return SourceFacts()
        guards = tuple(sorted((line, kind) for line, (kind, _) in
                              summarize(tree, "fixture", "<fixture>").guards.items()))
        lines: set[int] = set()
        for node in ast.walk(tree):
            dropped = isinstance(node, ast.Expr) or (
                isinstance(node, (ast.Assign, ast.AugAssign))
                and any(isinstance(t, ast.Subscript) and isinstance(t.value, ast.Call)
                        for t in (node.targets if isinstance(node, ast.Assign)
                                  else [node.target])))
            if dropped:
                lines.update(range(node.lineno, (node.end_lineno or node.lineno) + 1))
        return SourceFacts(frozenset(lines), guards)
