"""Runtime observer: which tensor layouts reached which torch op, on which line of user code.

    with Tracer(files=["model.py"]) as tracer:     # files=None: every non-library file
        run_the_program()
    for obs in tracer.observations:                # Observation: site, op, arguments, results,
        print(obs.site, obs.op, obs.receiver)      # error; layouts are plain data, no tensors

How it sees calls: a `torch.overrides.TorchFunctionMode` sees every op that goes through
`__torch_function__` (tensor methods, `torch.*`, `torch.nn.functional.*`), and `patches.py`
wraps the few entry points it cannot see (`register_buffer`, `nn.Parameter`, `torch.jit.trace`,
`torch.distributed` collectives, and raw-memory accessors where the mode misses them).
Optionally a global forward hook records every `nn.Module` output (`modules=True`).

Which calls are kept: those whose call site (see `frames.py`) is a user file. By default only
*direct* calls, where the user wrote the op on that line; `indirect=True` also keeps ops that
library code ran on behalf of a user line (attributed to that line, `direct=False`). Patched
entry points and module outputs are always attributed to the innermost user line, with
`direct` telling which case it was. Metadata queries (`size`, `dim`, `dtype`...) are skipped.

Guarantees: results and exceptions pass through unchanged (an exception is recorded, then
re-raised as the same object); no tensor is referenced after the call returns (layouts are
summarized at call time; origins use a weak-key map); the mode does not see its own metadata
queries, because torch disables a mode while its `__torch_function__` runs, and the patched
wrappers summarize under `torch._C.DisableTorchFunction`. Inside `torch.compile`d regions the
tracer is a pass-through: compiled code is opaque (see `contiglint.runtime` docs).
"""
from __future__ import annotations

import functools
import inspect
import os
import sys
import threading
from typing import Any, Callable, Collection, Iterable, Iterator, Optional

import torch
from torch.overrides import TorchFunctionMode
from torch.utils.weak import WeakIdKeyDictionary

from contiglint.verify.frames import FileFilter, FrameClassifier, Site, is_contiglint
from contiglint.verify.layout_summary import TensorLayout, summarize
from contiglint.verify.observation import Argument, Observation
from contiglint.verify.patches import EntryPatches
from contiglint.verify.torch_state import (
    OP_NAMES, defining_file, op_name, pop_stack, push_stack, remember_op_name, stack_depth,
    stack_top,
)

_TensorBase = torch._C.TensorBase

__all__ = ["Argument", "Observation", "Site", "TensorLayout", "Tracer", "METADATA_OPS"]

METADATA_OPS = frozenset({
    "Tensor.size", "Tensor.dim", "Tensor.ndim", "Tensor.shape", "Tensor.dtype", "Tensor.device",
    "Tensor.numel", "Tensor.nelement", "Tensor.element_size", "Tensor.requires_grad",
    "Tensor.grad_fn", "Tensor.is_nested", "Tensor.is_leaf", "Tensor.layout", "Tensor.names",
    "Tensor._version", "Tensor.is_cuda", "Tensor.is_sparse", "Tensor.is_quantized",
    "Tensor.is_meta", "Tensor.is_floating_point", "Tensor.is_complex", "Tensor.__len__",
    "Tensor.__hash__", "Tensor.dim_order", "Tensor.get_device", "Tensor.grad",
    "Tensor._backward_hooks", "Tensor.output_nr", "Tensor._base", "Tensor.is_mkldnn",
    "Tensor._cdata", "Tensor.__format__", "Tensor.__repr__",
})


class _Mode(TorchFunctionMode):
    def __init__(self, tracer: "Tracer") -> None:
        super().__init__()
        self._tracer = tracer

    def __torch_function__(self, func, types, args=(), kwargs=None):
        kwargs = kwargs or {}
        if torch.compiler.is_compiling():
            return func(*args, **kwargs)
        tracer = self._tracer
        if not tracer.watching:  # paused (sampling) but still on the mode stack
            return func(*args, **kwargs)
        try:
            op = OP_NAMES.get(func)
        except TypeError:  # unhashable callable
            op = op_name(func)
        if op is None:
            op = remember_op_name(func)
        if op in tracer.ignore:
            return func(*args, **kwargs)
        located = tracer._classifier.call_site(sys._getframe(1), tracer.indirect)
        if located is None:
            return func(*args, **kwargs)
        if not tracer._selected(op):
            result = func(*args, **kwargs)
            if located[1] and tracer.track_origins:
                tracer._note_origins(result, args, located[0])
            return result
        return tracer._record(op, "op", located, func, args, kwargs)


class Tracer:
    """Context manager recording `Observation`s; see the module docstring.

    files: None (all non-library files), paths (files or directories), or a predicate on the
        absolute filename. library: extra directories to treat as library code.
    indirect: also keep ops run by library code on behalf of a user line.
    modules: also record every nn.Module's output layout via a global forward hook.
    ignore: op names not to record (default: metadata queries).
    on_observation: called with each Observation as it is made (e.g. to aggregate);
        keep=False then avoids storing them, so memory stays bounded on long runs.
    track_origins: remember where non-contiguous results were made, for `Argument.origin`.
    callers: also record, per observation, the user frames that called the function holding
        its site (`Observation.called_from`; the fixture verifier's CTG114 check reads it).
    select: a predicate on op names; when given, only selected ops become Observations, and
        the others only feed origin tracking (a contiguity check of the result), which keeps a
        consumer that cares about a few ops (the watcher) cheap. Entries and modules are
        always recorded.
    """

    def __init__(self, files: FileFilter = None, *, library: Collection[str] = (),
                 indirect: bool = False, modules: bool = False,
                 ignore: Iterable[str] = METADATA_OPS,
                 on_observation: Optional[Callable[[Observation], None]] = None,
                 keep: bool = True, track_origins: bool = True, patch: bool = True,
                 select: Optional[Callable[[str], bool]] = None,
                 callers: bool = False) -> None:
        self._classifier = FrameClassifier(files, library)
        self.callers = callers
        self.indirect = indirect
        self.modules = modules
        self.ignore = frozenset(ignore)
        self.on_observation = on_observation
        self.keep = keep
        self.track_origins = track_origins
        self.patch = patch
        self.observations: list[Observation] = []
        self._select = select
        self._selection: dict[str, bool] = {}
        self._origins: WeakIdKeyDictionary = WeakIdKeyDictionary()
        self._mode: Optional[_Mode] = None
        self._patches: Optional[EntryPatches] = None
        self._hook: Any = None
        self._entries_in_progress = threading.local()
        self._backward: Optional[tuple[type, Any]] = None
        self.watching = True  # False while paused: ops and module outputs pass unobserved
        self._off_stack: Optional[int] = None  # paused off the mode stack: its depth then

    # -- lifetime ------------------------------------------------------------------------
    def __enter__(self) -> "Tracer":
        if self._mode is not None:
            raise RuntimeError("a Tracer cannot be entered twice at the same time")
        if self.patch:
            self._patches = EntryPatches(self._intercept_entry, self._classifier.is_user_file)
            self._patches.install()
        if self.modules:
            from torch.nn.modules.module import register_module_forward_hook
            self._hook = register_module_forward_hook(self._module_returned)
        self._mode = _Mode(self)
        self._mode.__enter__()
        self._watch_backward()
        return self

    def _watch_backward(self) -> None:
        """The autograd engine runs a custom `Function.backward` with torch function modes
        off, so the ops of user-written backward passes (where kernel wrappers get
        non-contiguous grad outputs) would go unseen: run each one under a mode of its own."""
        from torch.autograd.function import BackwardCFunction

        original = BackwardCFunction.__dict__.get("apply")
        if original is None:
            return
        tracer = self

        @functools.wraps(original)
        def apply(node, *args):
            if not tracer.active or torch._C._is_torch_function_mode_enabled():
                return original(node, *args)
            with _Mode(tracer):
                return original(node, *args)

        self._backward = (BackwardCFunction, original)
        BackwardCFunction.apply = apply

    def __exit__(self, *exc_info) -> None:
        if self._off_stack is not None:
            self.resume()  # back on the stack where we left it, so that exiting pops it
        mode, self._mode = self._mode, None
        if self._backward is not None:
            owner, original = self._backward
            owner.apply = original
            self._backward = None
        paused_elsewhere, self._off_stack = self._off_stack is not None, None
        self.watching = True
        try:
            if mode is not None and not paused_elsewhere:
                mode.__exit__(*exc_info)
        finally:
            if self._hook is not None:
                self._hook.remove()
                self._hook = None
            if self._patches is not None:
                self._patches.restore()
                self._patches = None

    @property
    def active(self) -> bool:
        return self._mode is not None

    def pause(self) -> None:
        """Stop observing ops and module outputs until `resume()` (entry points still are).
        The mode leaves torch's mode stack when it is on top, so that unobserved ops cost
        nothing; under another mode it stays and lets ops through."""
        if self._mode is None or not self.watching:
            return
        self.watching = False
        depth = stack_depth()
        if depth and stack_top(depth) is self._mode:
            pop_stack()
            self._off_stack = depth - 1

    def resume(self) -> None:
        """Observe again. A mode paused off the stack goes back only onto the stack it left
        (same depth); otherwise it stays off, unobserving, rather than misnest other modes."""
        if self._mode is None or self.watching:
            return
        if self._off_stack is not None:
            if stack_depth() != self._off_stack:
                return
            push_stack(self._mode)
            self._off_stack = None
        self.watching = True

    def origin_of(self, tensor: Any) -> Optional[Site]:
        """Where `tensor` (this object) was made non-contiguous under this tracer, if known."""
        try:
            return self._origins.get(tensor)
        except TypeError:
            return None

    # -- interception --------------------------------------------------------------------
    def _selected(self, op: str) -> bool:
        if self._select is None:
            return True
        chosen = self._selection.get(op)
        if chosen is None:
            chosen = self._selection[op] = bool(self._select(op))
        return chosen

    def _note_origins(self, result: Any, args: tuple, site: Site) -> None:
        """The cheap path for unselected ops: remember only where contiguity was lost."""
        values = result if isinstance(result, (list, tuple)) else (result,)
        origins = self._origins
        inherited: Any = False
        for value in values:
            if isinstance(value, _TensorBase) and not value.is_contiguous() \
                    and value not in origins:
                if inherited is False:
                    inherited = next((origins.get(a) for a in args
                                      if isinstance(a, _TensorBase) and a in origins), None)
                origins[value] = inherited or site

    def _intercept_entry(self, op: str, func: Callable[..., Any], args: tuple,
                         kwargs: dict) -> Any:
        if not self.active or torch.compiler.is_compiling():
            return func(*args, **kwargs)
        inside = self._entries_in_progress.__dict__.setdefault("ops", set())
        located = None if op in inside else \
            self._classifier.call_site(sys._getframe(1), indirect=True)
        if located is None or (inside and not located[1]):
            # not from user code, torch re-entering the same entry point, or library code run
            # by another entry point in progress (`dist.send` calling `isend`)
            return func(*args, **kwargs)
        inside.add(op)
        try:
            return self._record(op, "entry", located, func, args, kwargs)
        finally:
            inside.discard(op)

    def _record(self, op: str, kind: str, located: tuple[Site, bool], func: Callable[..., Any],
                args: tuple, kwargs: dict) -> Any:
        site, direct = located
        with torch._C.DisableTorchFunction():
            if kind == "entry":
                arguments = tuple(self._named_arguments(func, args, kwargs))
            else:
                arguments = tuple(self._arguments(op, args, kwargs))
        try:
            result = func(*args, **kwargs)
        except BaseException as error:
            self._emit(Observation(site, op, kind, direct, arguments, (), type(error).__name__,
                                   str(error)[:2000]))
            raise
        with torch._C.DisableTorchFunction():
            results = tuple(self._results(result, arguments, site, direct and kind == "op"))
        self._emit(Observation(site, op, kind, direct, arguments, results))
        return result

    def _module_returned(self, module: Any, inputs: Any, output: Any) -> None:
        if not self.active or not self.watching or torch.compiler.is_compiling():
            return
        located = self._classifier.call_site(sys._getframe(1), indirect=True)
        if located is None:
            return
        op = f"{type(module).__qualname__}.forward"
        with torch._C.DisableTorchFunction():
            arguments = tuple(self._arguments(op, inputs, {}))
            results = tuple(self._results(output, arguments, located[0], False))
        self._emit(Observation(located[0], op, "module", located[1], arguments, results,
                               defined_in=defining_file(type(module))))

    def _emit(self, observation: Observation) -> None:
        if self.callers and observation.kind != "module":
            observation = observation._replace(called_from=self.called_from(observation.site))
        if self.keep:
            self.observations.append(observation)
        if self.on_observation is not None:
            self.on_observation(observation)

    def called_from(self, site: Site, limit: int = 8) -> tuple[Site, ...]:
        """The user frames that called the function holding `site`, innermost first, as a
        traceback lists them (user files only). The chain ends at a frame of contiglint's own
        (`contiglint run` running the script, the verifier a case): what started contiglint is
        not part of the program. Call it while that function runs."""
        is_user = self._classifier.is_user
        frame = sys._getframe(1)
        while frame is not None and not (frame.f_lineno == site.line and is_user(frame.f_code)
                                         and os.path.abspath(frame.f_code.co_filename)
                                         == site.file):
            frame = frame.f_back
        chain = []
        frame = frame.f_back if frame is not None else None
        while frame is not None and len(chain) < limit \
                and not is_contiglint(frame.f_code.co_filename):
            if is_user(frame.f_code):
                chain.append(Site(os.path.abspath(frame.f_code.co_filename), frame.f_lineno,
                                  frame.f_code.co_name))
            frame = frame.f_back
        return tuple(chain)

    def _arguments(self, op: str, args: tuple, kwargs: dict) -> Iterator[Argument]:
        receiver = op.startswith("Tensor.")
        for index, value in enumerate(args):
            name = "self" if receiver and index == 0 else str(index - 1 if receiver else index)
            yield from self._argument(name, value)
        for key, value in kwargs.items():
            yield from self._argument(key, value)

    def _named_arguments(self, func: Callable[..., Any], args: tuple,
                         kwargs: dict) -> Iterator[Argument]:
        """Entry points are rare: bind their arguments to parameter names for readability."""
        try:
            bound = inspect.signature(func).bind_partial(*args, **kwargs).arguments
        except (TypeError, ValueError):
            bound = {**{str(i): v for i, v in enumerate(args)}, **kwargs}
        for name, value in bound.items():
            yield from self._argument(name, value)

    def _argument(self, name: str, value: Any) -> Iterator[Argument]:
        if isinstance(value, dict):  # torch.save(state_dict, f): the tensors are the values
            for key, item in value.items():
                yield from self._argument(f"{name}[{key!r}]", item)
            return
        if isinstance(value, (list, tuple)):
            for index, item in enumerate(value):
                layout = summarize(item)
                if layout is not None:
                    yield Argument(f"{name}[{index}]", layout, self._origin(item, layout))
            return
        layout = summarize(value)
        if layout is not None:
            yield Argument(name, layout, self._origin(value, layout))

    def _origin(self, value: Any, layout: TensorLayout) -> Optional[Site]:
        if not self.track_origins or layout.contiguous:
            return None
        return self._origins.get(value)

    def _results(self, result: Any, arguments: tuple[Argument, ...], site: Site,
                 remember: bool) -> Iterator[TensorLayout]:
        values = result if isinstance(result, (list, tuple)) else (result,)
        inherited = next((a.origin for a in arguments if a.origin is not None), None)
        for value in values:
            layout = summarize(value)
            if layout is None:
                continue
            if remember and self.track_origins and not layout.contiguous \
                    and value not in self._origins:
                self._origins[value] = inherited or site
            yield layout
