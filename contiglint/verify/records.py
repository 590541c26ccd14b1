"""What one run of a fixture produced: plain, picklable records passed from worker to verifier.

A fixture case runs in a forked child; everything it produced crosses a pipe as a pickle of
these records, so nothing here may hold a live tensor except the returned value's digest
(detached CPU tensors, compared against the fixed program's).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Optional

RETURNED, RAISED, TIMEOUT, CRASHED = "returned", "raised", "timeout", "crashed"


@dataclass
class CaseRun:
    """One `case_*()` call. `observations` come from the tracer; `escapes` are tensors that
    left a fixture function (kind "return") or were stored on a module attribute ("setattr"),
    as Observations with one Argument per tensor; `tracing` holds the indices of observations
    made while `torch.jit.trace` was recording; `emulated` the (line, op) of each device move
    rewritten by the CUDA emulation."""

    case: str
    status: str
    error: Optional[str] = None  # "RuntimeError: view size is not compatible ..."
    observations: list = field(default_factory=list)
    escapes: list = field(default_factory=list)
    tracing: frozenset = frozenset()
    emulated: list = field(default_factory=list)
    value: Any = None
    seconds: float = 0.0
    lines: frozenset = frozenset()  # lines of the program that called any function


@dataclass
class FileRun:
    """All cases of one fixture program. `error`: it could not be imported or run at all."""

    path: str
    device: str  # "cuda" | "cuda emulated on cpu"
    cases: list = field(default_factory=list)
    error: Optional[str] = None

    def case(self, name: str) -> Optional[CaseRun]:
        return next((case for case in self.cases if case.case == name), None)
