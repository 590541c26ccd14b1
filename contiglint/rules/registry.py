"""The rule registry: one table of code -> rule class -> status, like ruff's `codes.rs`.

A rule's class declares its facts (code, sinks, `fix_safety`, `severity`, `opt_in` when it is
opt-in by design); nothing changes a class once it is defined. Whether a rule runs by default
is its status here, read by the CLI (`rules`, `rule CODE`, the selection), the documentation
and the configuration alike:

* "stable": runs by default;
* "preview": opt-in because its measured precision on real code is below the policy
  (rules/precision.py); enabled by selecting its full code;
* "opt-in": opt-in by design (CTG113), whatever its precision.

A rule whose `fix_safety` or `severity` is not one of `FIX_SAFETIES` / `SEVERITIES`, or whose
code is not the one it is registered under, is an error when the table is first read.
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

from contiglint.rules import precision
from contiglint.rules.base import FIX_SAFETIES, SEVERITIES, Rule
from contiglint.rules.ctg101_view_on_noncontiguous import ViewOnNonContiguous
from contiglint.rules.ctg102_narrow_escapes import NarrowEscapes
from contiglint.rules.ctg103_noncontiguous_buffer_or_parameter import (
    NonContiguousBufferOrParameter,
)
from contiglint.rules.ctg104_device_move_keeps_strides import DeviceMoveKeepsStrides
from contiglint.rules.ctg105_trace_with_noncontiguous_input import TraceWithNonContiguousInput
from contiglint.rules.ctg106_raw_memory_of_noncontiguous import RawMemoryOfNonContiguous
from contiglint.rules.ctg107_collective_on_noncontiguous import CollectiveOnNonContiguous
from contiglint.rules.ctg108_inplace_on_expanded import InplaceOnExpanded
from contiglint.rules.ctg109_contiguous_in_loop import ContiguousInLoop
from contiglint.rules.ctg110_contiguous_drops_channels_last import ContiguousDropsChannelsLast
from contiglint.rules.ctg111_inplace_on_temporary_copy import InplaceOnTemporaryCopy
from contiglint.rules.ctg112_save_of_view import SaveOfView
from contiglint.rules.ctg113_redundant_contiguous import RedundantContiguous
from contiglint.rules.ctg114_contract_requires_contiguous import ContractRequiresContiguous

RULES: dict[str, type[Rule]] = {
    "CTG101": ViewOnNonContiguous,
    "CTG102": NarrowEscapes,
    "CTG103": NonContiguousBufferOrParameter,
    "CTG104": DeviceMoveKeepsStrides,
    "CTG105": TraceWithNonContiguousInput,
    "CTG106": RawMemoryOfNonContiguous,
    "CTG107": CollectiveOnNonContiguous,
    "CTG108": InplaceOnExpanded,
    "CTG109": ContiguousInLoop,
    "CTG110": ContiguousDropsChannelsLast,
    "CTG111": InplaceOnTemporaryCopy,
    "CTG112": SaveOfView,
    "CTG113": RedundantContiguous,
    "CTG114": ContractRequiresContiguous,
}


@dataclass(frozen=True)
class Entry:
    code: str
    rule: type[Rule]
    status: str  # one of STATUSES

    @property
    def opt_in(self) -> bool:
        """Runs only when its full code is selected (a preview rule or one opt-in by design)."""
        return self.status != "stable"

    @property
    def preview(self) -> bool:
        return self.status == "preview"


def problems(code: str, rule: type[Rule]) -> list[str]:
    """What is wrong with `rule`'s declared facts, registered under `code`."""
    found = []
    if getattr(rule, "code", None) != code:
        found.append(f"is registered as {code} but its code is {getattr(rule, 'code', None)!r}")
    if rule.fix_safety not in FIX_SAFETIES:
        found.append(f"has fix_safety {rule.fix_safety!r}, not one of "
                     f"{', '.join(map(repr, FIX_SAFETIES))}")
    if rule.severity not in SEVERITIES:
        found.append(f"has severity {rule.severity!r}, not one of "
                     f"{', '.join(map(repr, SEVERITIES))}")
    return found


def status_of(rule: type[Rule]) -> str:
    """The policy: opt-in by design, else preview when measured below the policy, else
    stable."""
    if rule.opt_in:
        return "opt-in"
    return "preview" if precision.measured(rule.code).preview else "stable"


@lru_cache(maxsize=None)
def entries() -> tuple[Entry, ...]:
    """The table, sorted by code; a rule with a wrong declared fact is a ValueError naming it."""
    wrong = [f"{rule.__name__} {problem}" for code, rule in RULES.items()
             for problem in problems(code, rule)]
    if wrong:
        raise ValueError("bad rule declarations: " + "; ".join(wrong))
    return tuple(Entry(code, RULES[code], status_of(RULES[code])) for code in sorted(RULES))


@lru_cache(maxsize=None)
def _by_class() -> dict[type, Entry]:
    return {entry.rule: entry for entry in entries()}


def entry(rule: type[Rule] | Rule) -> Entry:
    """The registry's entry of a rule class (or of an instance's class)."""
    return _by_class()[rule if isinstance(rule, type) else type(rule)]


def is_opt_in(rule: type[Rule] | Rule) -> bool:
    return entry(rule).opt_in


def is_preview(rule: type[Rule] | Rule) -> bool:
    return entry(rule).preview
