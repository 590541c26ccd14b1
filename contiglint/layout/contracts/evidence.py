"""Can a module's functions require a layout on their own? Asked before the function passes
of its summary, so that a project run makes them only where they can matter.

A parameter becomes required (function_pass.py, guards.py) only through
* a layout check: a call of `.is_contiguous()` or `.stride()` (asserted, raised on, passed to
  `torch._check` or to a check function);
* a raw read: a call of a raw method (`data_ptr`, `untyped_storage`, ...), a raw attribute
  (`__cuda_array_interface__`, `.numpy().ctypes`), a raw reader (`torch.frombuffer`, ...);
* a launch of one of the module's jit kernels (`kernel[grid](p)`);
* a call of an extension module that the module passes `.contiguous()` tensors (its
  `extensions`);
* an edge: the parameter passed on to a function that requires it, elsewhere.

A module with none of the first four (`holds_evidence`) can require a parameter only through an
edge, whose target the code names (`ModuleIndex.names`: the function, or its class for
`Cls.apply`, or `ops` for a custom op). Such a module's summary is made *partial*: everything
but the function passes (its extensions, custom ops, check functions), with the names it
spells. The project run makes the function passes of a partial module only when the
project's contracts give one of those names a requirement (`needs_functions`), again until no
partial module does: every requirement the complete summaries would give is then found, and no
other (a partial module's functions have none). Strict mode reports calls of extensions whose
contract is unknown, which need no evidence: it makes every summary whole.
"""
from __future__ import annotations

import ast

from contiglint.catalogue import contracts as catalogue
from contiglint.layout.syntax.index import ModuleIndex

# calls `x.m(...)` that check a layout or read raw memory
EVIDENCE_METHODS = catalogue.GUARD_CHECKS | catalogue.RAW_METHODS | frozenset({"stride"})
# names a raw read spells: raw attributes and the last parts of the raw readers
EVIDENCE_NAMES = catalogue.RAW_ATTRIBUTES | frozenset(
    qualname.rsplit(".", 1)[-1] for qualname in catalogue.RAW_READERS)


def holds_evidence(index: ModuleIndex, kernels: dict, extensions: dict[str, bool]) -> bool:
    """Can a function of the module require a parameter by its own code (see above)?
    `kernels`: the module's jit kernels by name; `extensions`: its extension names ->
    whether it passes them `.contiguous()` tensors."""
    if any(extensions.values()) or not EVIDENCE_NAMES.isdisjoint(index.names):
        return True
    for call in index.calls:
        func = call.func
        if func.__class__ is ast.Attribute and func.attr in EVIDENCE_METHODS:
            return True
        if kernels and func.__class__ is ast.Subscript and \
                func.value.__class__ is ast.Name and func.value.id in kernels:
            return True
    return False
