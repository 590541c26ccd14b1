"""`watch()`: run code under the tracer and collect a `Report` of layout hazards.

Nothing is patched until the context is entered and everything is restored when it exits, so
the cost when off is zero. When on, each torch call from user code costs a frame walk and a
layout summary of its tensor arguments (see benchmarks/runtime_overhead.py for the numbers);
observations are turned into hazards on the fly and not stored, so memory stays bounded.

An exception escaping the block is reported too: a view error raised directly in user code is
already an observation; one raised inside library code (e.g. `parameters_to_vector` on a
non-contiguous Parameter) is attributed to the innermost user frame of the traceback.
"""
from __future__ import annotations

import os
from types import TracebackType
from typing import Collection, Optional

from contiglint.runtime.hazards import HazardFinder, Hazard, watched_op
from contiglint.runtime.report import Report
from contiglint.verify.frames import FileFilter, Site
from contiglint.verify.observation import Observation
from contiglint.verify.tracer import Tracer

_VIEW_ERRORS = ("view size is not compatible", "to view ", "Use .reshape(...) instead")


class Watch:
    """Context manager; entering returns the `Report`, which fills as the block runs."""

    def __init__(self, files: FileFilter = None, *, library: Collection[str] = (),
                 modules: bool = True, explicit_copies: bool = False,
                 report: Optional[Report] = None) -> None:
        self.report = report if report is not None else Report()
        self._tracer = Tracer(files, library=library, modules=modules, keep=False,
                              on_observation=self._observe, select=watched_op)
        self._finder = HazardFinder(explicit_copies, self._tracer._classifier.is_user_file)

    def _observe(self, observation: Observation) -> None:
        for hazard in self._finder.hazards(observation):
            self.report.add(hazard)

    def __enter__(self) -> Report:
        self._tracer.__enter__()
        return self.report

    def __exit__(self, exc_type: Optional[type], exc: Optional[BaseException],
                 traceback: Optional[TracebackType]) -> None:
        self._tracer.__exit__(exc_type, exc, traceback)
        if exc is not None:
            self.record_escaped(exc)

    def record_escaped(self, exc: BaseException) -> None:
        """Report an uncaught view error raised inside library code at the user's line."""
        message = str(exc)
        if not isinstance(exc, RuntimeError) or not any(m in message for m in _VIEW_ERRORS):
            return
        if any(e.code == "CTG101" and e.note == message[:300] for e in self.report.entries):
            return  # raised directly in user code: already observed, with its layout
        site = self._innermost_user_site(exc.__traceback__)
        if site is not None:
            self.report.add(Hazard("CTG101", site, "view (inside a library call)", None,
                                   note=message))
        self.report.script_error = f"{type(exc).__name__}: {message.splitlines()[0]}"

    def _innermost_user_site(self, traceback: Optional[TracebackType]) -> Optional[Site]:
        found = None
        classifier = self._tracer._classifier
        while traceback is not None:
            code = traceback.tb_frame.f_code
            if classifier.is_user(code):
                name = code.co_filename
                found = Site(name if name.startswith("<") else os.path.abspath(name),
                             traceback.tb_lineno, code.co_name)
            traceback = traceback.tb_next
        return found


def watch(files: FileFilter = None, *, library: Collection[str] = (), modules: bool = True,
          explicit_copies: bool = False, report: Optional[Report] = None) -> Watch:
    """`with contiglint.runtime.watch() as report: model(x)`, then `print(report)`.

    files: None for every non-library file, or paths/a predicate (see `Tracer`). modules: also
    check what each nn.Module returns (CTG202). explicit_copies: also count copies made by
    `.contiguous()` (normally the deliberate fix) in CTG201.
    """
    return Watch(files, library=library, modules=modules, explicit_copies=explicit_copies,
                 report=report)
