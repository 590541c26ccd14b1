"""`watch()`: run code under the tracer and collect a `Report` of layout hazards.

Nothing is patched until the context is entered and everything is restored when it exits, so
the cost when off is zero. When on, each torch call from user code costs a frame walk and a
layout summary of its tensor arguments (see benchmarks/runtime_overhead.py for the numbers);
observations are turned into hazards on the fly and not stored, so memory stays bounded.

An exception escaping the block is reported too: a view error raised directly in user code is
already an observation; one raised inside library code (e.g. `parameters_to_vector` on a
non-contiguous Parameter), inside torch.compile, in numpy or in a child process is attributed
to the user line that led to it (see `escaped.py`).

With `children=True` (what `contiglint run` uses) processes started by the block are watched
too and their reports merged into this one (see `children.py`).

By default every call is watched until the steps of a training loop stop showing new call
signatures, and then only sampled steps are (see `sampling.py`); `full=True` watches every
call of every step. The same `Watch` entered again continues where it stopped, sampling
included, so a long run can keep one on.
"""
from __future__ import annotations

import dataclasses
from types import TracebackType
from typing import Collection, Optional

from contiglint.runtime.children import ChildReports
from contiglint.runtime.escaped import blamed_site, layout_failure
from contiglint.runtime.hazards import HazardFinder, Hazard, watched_op
from contiglint.runtime.report import Report
from contiglint.runtime.sampling import Sampler
from contiglint.verify.frames import FileFilter
from contiglint.verify.observation import Observation
from contiglint.verify.tracer import Tracer


class Watch:
    """Context manager; entering returns the `Report`, which fills as the block runs."""

    def __init__(self, files: FileFilter = None, *, library: Collection[str] = (),
                 modules: bool = True, explicit_copies: bool = False,
                 report: Optional[Report] = None, children: bool = False,
                 backend: str = "any", full: bool = False, stable_steps: int = 5,
                 sample_every: int = 20) -> None:
        self.report = report if report is not None else Report()
        self.sampler = Sampler(full, stable_steps, sample_every)
        self._hooks: list = []
        self._tracer = Tracer(files, library=library, modules=modules, keep=False,
                              on_observation=self._observe, select=watched_op)
        self._finder = HazardFinder(explicit_copies, self._tracer._classifier.is_user_file,
                                    backend)
        settings = {"files": None if files is None or callable(files) else list(files),
                    "library": list(library), "modules": modules,
                    "explicit_copies": explicit_copies, "backend": backend, "full": full,
                    "stable_steps": stable_steps, "sample_every": sample_every}
        self._children = ChildReports(self, settings) if children else None

    @property
    def active(self) -> bool:
        return self._tracer.active

    def _observe(self, observation: Observation) -> None:
        self.sampler.observed((observation.site, observation.op, tuple(
            (a.layout.shape, a.layout.strides) for a in observation.arguments)))
        for hazard in self._finder.hazards(observation):
            if not hazard.chain:
                hazard = dataclasses.replace(hazard, chain=self._tracer.called_from(hazard.site))
            self.report.add(hazard)

    # -- steps (sampling) ----------------------------------------------------------------------
    def _install_step_hooks(self) -> None:
        from torch.nn.modules import module
        from torch.optim.optimizer import register_optimizer_step_post_hook

        sampler, tracer = self.sampler, self._tracer

        def entered(_module, inputs):
            if sampler.module_entered(inputs, None):
                tracer.resume()

        def returned(_module, _inputs, _output):
            if sampler.module_returned():
                self._end_step()

        def stepped(_optimizer, _args, _kwargs):
            sampler.optimizer_stepped()
            self._end_step()

        self._hooks.append(module.register_module_forward_pre_hook(entered))
        try:
            self._hooks.append(module.register_module_forward_hook(returned, always_call=True))
        except TypeError:  # torch < 2.1: a forward that raises leaves the depth one too deep
            self._hooks.append(module.register_module_forward_hook(returned))
        self._hooks.append(register_optimizer_step_post_hook(stepped))

    def _end_step(self) -> None:
        if self.sampler.step_ended():
            self._tracer.resume()
        else:
            self._tracer.pause()

    def _remove_step_hooks(self) -> None:
        for hook in self._hooks:
            hook.remove()
        self._hooks.clear()

    def __enter__(self) -> Report:
        if self._children is not None and not self._children.start():
            self._children = None  # an enclosing watch already collects this process's children
        try:
            self._tracer.__enter__()
        except BaseException:
            self._collect_children()
            raise
        self._install_step_hooks()
        if not self.sampler.watching:
            self._tracer.pause()  # entered again mid-sampling: carry on sampling
        return self.report

    def __exit__(self, exc_type: Optional[type], exc: Optional[BaseException],
                 traceback: Optional[TracebackType]) -> None:
        self._remove_step_hooks()
        self._tracer.__exit__(exc_type, exc, traceback)
        self.report.sampling = self.sampler.summary()
        self._collect_children()
        if exc is not None:
            self.record_escaped(exc)

    def _collect_children(self) -> None:
        if self._children is not None:
            for child in self._children.stop():
                self.report.merge(child)

    def record_escaped(self, exc: BaseException) -> None:
        """Report an uncaught layout failure that no observation caught, at the user's line."""
        failure = layout_failure(exc)
        if failure is None:
            return
        code, message = failure
        site = blamed_site(exc, self._tracer._classifier.is_user_file)
        if site is None or any(e.code == code and e.note == message[:300]
                               for e in self.report.entries):
            return  # raised directly in user code: already observed, with its layout
        if any((e.code, e.file, e.line) == (code, site.file, site.line)
               for e in self.report.entries):
            return  # observed at that line (e.g. in the child process that raised it)
        op = "view (inside a library call)" if code == "CTG101" else "raw buffer (numpy/ctypes)"
        self.report.add(Hazard(code, site, op, None, note=message))
        self.report.script_error = f"{type(exc).__name__}: {(str(exc) or '?').splitlines()[0]}"


def watch(files: FileFilter = None, *, library: Collection[str] = (), modules: bool = True,
          explicit_copies: bool = False, report: Optional[Report] = None,
          children: bool = False, backend: str = "any", full: bool = False,
          stable_steps: int = 5, sample_every: int = 20) -> Watch:
    """`with contiglint.runtime.watch() as report: model(x)`, then `print(report)`.

    files: None for every non-library file, or paths/a predicate (see `Tracer`). modules: also
    check what each nn.Module returns (CTG202). explicit_copies: also count copies made by
    `.contiguous()` (normally the deliberate fix) in CTG201. children: also watch processes
    started inside the block and merge their reports (see `children.py`). backend: which
    backend's collective contracts to report ("any": what fails on NCCL or gloo, whatever
    backend this run uses; see catalogue/collectives.py). full: watch every call of every
    step; by default every step is watched until `stable_steps` steps in a row add no new call
    signature, then one step in `sample_every` and every step whose outermost module gets
    inputs of a new shape (see `sampling.py`); the report says which. Entry points
    (collectives, safetensors saves, Triton launches, `torch.save`) are watched in every step;
    layout guards and `torch.ops` custom ops are ops, part of the call signature, watched in
    the steps sampling looks at.
    """
    return Watch(files, library=library, modules=modules, explicit_copies=explicit_copies,
                 report=report, children=children, backend=backend, full=full,
                 stable_steps=stable_steps, sample_every=sample_every)
