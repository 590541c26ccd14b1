"""Tensors that leave a fixture function (returned, stored on a module attribute) or enter a
Python function called from it (a kernel launcher), and which lines of the file ran.

The tracer sees torch ops, not Python data flow, but one rule family (a partial view that
escapes, CTG102) is about where a tensor *goes*. A profile hook restricted to one file sees
each `return` of that file's functions and each `nn.Module.__setattr__` called from it, and
records the layouts as Observations (kind "return" or "setattr", op "<return>" or
"<setattr NAME>"), with one Argument per tensor ("value", or "value[i]" for a tuple). Calls of
Python functions from the file become kind "call" observations (op: the callee's qualified
name, arguments: its tensor parameters): that is how a Triton-style `kernel[grid](x)` launch,
which no torch hook sees, shows what it received.
"""
from __future__ import annotations

import os
import sys
from typing import Any, Optional

import torch

from contiglint.verify.frames import Site
from contiglint.verify.layout_summary import summarize
from contiglint.verify.observation import Argument, Observation

_MODULE_SETATTR = torch.nn.Module.__setattr__.__code__


class EscapeRecorder:
    def __init__(self, path: str) -> None:
        self.path = os.path.abspath(path)
        self.observations: list[Observation] = []
        self.lines: set[int] = set()  # lines of the file that called anything
        self._previous: Any = None

    def __enter__(self) -> "EscapeRecorder":
        self._previous = sys.getprofile()
        sys.setprofile(self._profile)
        return self

    def __exit__(self, *exc_info) -> None:
        sys.setprofile(self._previous)

    def _profile(self, frame, event: str, arg: Any) -> None:
        if event == "c_call":
            if frame.f_code.co_filename == self.path:
                self.lines.add(frame.f_lineno)
        elif event == "call":
            caller = frame.f_back
            if caller is not None and caller.f_code.co_filename == self.path:
                self.lines.add(caller.f_lineno)
                if frame.f_code is not _MODULE_SETATTR:
                    self._record_call(caller, frame)
        if event == "return":
            code = frame.f_code
            if code.co_filename == self.path and arg is not None:
                self._record(frame, "return", "<return>", arg)
        elif event == "call" and frame.f_code is _MODULE_SETATTR:
            caller = frame.f_back
            if caller is not None and caller.f_code.co_filename == self.path:
                name = frame.f_locals.get("name")
                self._record(caller, "setattr", f"<setattr {name}>", frame.f_locals.get("value"))

    def _record_call(self, caller, frame) -> None:
        """A Python function (a kernel launcher, a helper) called from a fixture line with
        tensors: recorded as kind "call", its tensor parameters (and *args) as arguments."""
        code = frame.f_code
        names = code.co_varnames[:code.co_argcount + code.co_kwonlyargcount
                                 + bool(code.co_flags & 0x04)]
        values = frame.f_locals
        with torch._C.DisableTorchFunction():
            arguments = tuple(a for name in names if name != "self"
                              for a in _arguments(values.get(name), name))
        if arguments:
            site = Site(self.path, caller.f_lineno, caller.f_code.co_name)
            self.observations.append(Observation(site, code.co_qualname, "call", True,
                                                 arguments, ()))

    def _record(self, frame, kind: str, op: str, value: Any) -> None:
        with torch._C.DisableTorchFunction():
            arguments = tuple(_arguments(value))
        if arguments:
            site = Site(self.path, frame.f_lineno, frame.f_code.co_name)
            self.observations.append(Observation(site, op, kind, True, arguments, ()))


def _arguments(value: Any, name: str = "value") -> list[Argument]:
    items = [(name, value)] if not isinstance(value, (tuple, list)) else \
        [(f"{name}[{i}]", item) for i, item in enumerate(value)]
    found = []
    for name, item in items:
        layout: Optional[object] = summarize(item)
        if layout is not None:
            found.append(Argument(name, layout))
    return found
