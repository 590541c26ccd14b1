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
project's contracts give one of those names a requirement (`ProjectContracts.passed_on_by`),
until no partial module does: every requirement the complete summaries would give is then
found, and no other (a partial module's functions have none). Strict mode reports calls of
extensions whose contract is unknown, which need no evidence: it makes every summary whole.

Before the text is parsed, `text_may_hold_evidence` answers the same question for the words
the text spells, and more: whether it may define a custom op, a jit kernel or an extension
binding. A module it clears, which no rule needs parsed either (engine.py, `needs_tree`), gets
a partial summary made from its text alone (`from_text`: no custom op, extension or check
function, and every word of the text as the names it spells); it is parsed and made whole
only when the project's contracts require a function it names, or another module's layout
check calls a function of it that may be a check function (`ProjectContracts.passed_on_by`).
"""
from __future__ import annotations

import ast
import re

from contiglint.catalogue import contracts as catalogue
from contiglint.layout.contracts.records import ModuleSummary
from contiglint.layout.syntax.index import ModuleIndex
from contiglint.layout.syntax.text import Text, called_attribute, followed_by, occurrences

# calls `x.m(...)` that check a layout or read raw memory
EVIDENCE_METHODS = catalogue.GUARD_CHECKS | catalogue.RAW_METHODS | frozenset({"stride"})
# raw attributes (`x.__cuda_array_interface__`), and what code that calls a raw reader spells
# of its name: the function of torch or numpy (`frombuffer`), else the module (`ctypes`,
# `ctypeslib`), as an attribute, a name or a part of an import
RAW_ATTRIBUTES = catalogue.RAW_ATTRIBUTES
READER_WORDS = frozenset(
    parts[1] if parts[0] in ("torch", "numpy") else parts[0]
    for parts in (qualname.split(".") for qualname in catalogue.RAW_READERS))
# the names a custom op's definition spells: a definer's last part (its decorator), or `impl`
# (a library's `.impl(name, function)`, a call of an attribute)
DEFINER_NAMES = frozenset(q.rsplit(".", 1)[-1] for q in catalogue.LIBRARY_DEFINERS) | {"impl"}

_EXTENSION_ENDS = catalogue.EXTENSION_SUFFIXES  # a module named like an extension ends so
_TOP_LEVEL_DEF = re.compile(r"^(?:async[ \t]+)?def[ \t]+(\w+)", re.MULTILINE)


def text_may_hold_evidence(text: str) -> bool:
    """Can the module be other than a partial summary with no custom op, kernel or extension,
    as far as its text shows? `text`: as Python reads it (`prefilter.as_python_reads`).
    Every name the parsed test reads is a word of the text; a kernel launch is a top-level
    function's name followed by `[`, in a text where its decorator spells "jit"; an
    extension is bound by `cpp_extension` or a module named like one, and made contiguous by
    a `.contiguous()` call."""
    if "contiguous" in text and (
            "cpp_extension" in text or any(True for end in _EXTENSION_ENDS
                                           for _ in occurrences(text, end, start=False))):
        return True
    if any(True for name in RAW_ATTRIBUTES | READER_WORDS | DEFINER_NAMES - {"impl"}
           for _ in occurrences(text, name)):
        return True
    if any(called_attribute(text, at, at + len(name))
           for name in EVIDENCE_METHODS | {"impl"} for at in occurrences(text, name)):
        return True
    # a kernel is a function of the module's top level (its `def` starts its line, under its
    # decorators), launched as `kernel[grid](...)`
    return "jit" in text and any(followed_by(text, at + len(name), "[")
                                 for name in _TOP_LEVEL_DEF.findall(text)
                                 for at in occurrences(text, name))


def from_text(module: str, path: str, text: str) -> ModuleSummary:
    """The partial summary of a text that `text_may_hold_evidence` clears, made without
    parsing it: its names are every word of the text (the code's names are among them)."""
    return ModuleSummary(module, path, partial=True, unparsed=True,
                         names=Text.of(text).words)


def holds_evidence(index: ModuleIndex, kernels: dict, extensions: dict[str, bool]) -> bool:
    """Can a function of the module require a parameter by its own code (see above)?
    `kernels`: the module's jit kernels by name; `extensions`: its extension names ->
    whether it passes them `.contiguous()` tensors."""
    if any(extensions.values()) or not RAW_ATTRIBUTES.isdisjoint(index.names) or \
            not READER_WORDS.isdisjoint(index.names) or \
            not READER_WORDS.isdisjoint(index.dotted_names):
        return True
    for call in index.calls:
        func = call.func
        if func.__class__ is ast.Attribute and func.attr in EVIDENCE_METHODS:
            return True
        if kernels and func.__class__ is ast.Subscript and \
                func.value.__class__ is ast.Name and func.value.id in kernels:
            return True
    return False
