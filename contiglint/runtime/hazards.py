"""Which observations are hazards: the runtime counterpart of the static rules.

Each check reads one `Observation` (plus a little memory of recent copies and module outputs)
and says whether a non-contiguous tensor reached a layout-sensitive op, and at what cost. The
thresholds follow docs/layout-facts.md: channels_last tensors are a deliberate layout, not a
hazard, for buffers, device moves and module outputs; gathers handle non-contiguous inputs
correctly on gloo, so only the collectives that corrupt or raise are reported.
"""
from __future__ import annotations

import os
import sys
from dataclasses import dataclass
from typing import Callable, Iterator, Optional

from contiglint.catalogue import collectives, ops, sinks
from contiglint.catalogue.contracts import EXTENSION_EFFECT, KNOWN
from contiglint.catalogue.inplace import is_inplace, writes_data
from contiglint.runtime.contracts import RuntimeContracts
from contiglint.verify.observation import Argument, Observation
from contiglint.verify.frames import Site
from contiglint.verify.layout_summary import TensorLayout, summarize

# ops that copy only when the layout forbids a view (the conversions copy for a dtype/device)
COPYING_OPS = ops.runtime_names(ops.LAYOUT_COPIES)
EXPLICIT_COPIES = sinks.runtime("contiguous_call")
RESHAPES = frozenset(op for op in COPYING_OPS if op.rsplit(".", 1)[-1].startswith("reshape"))
# What the static CTG101 fix says of the `.reshape` it writes, so both modes say the same.
RESHAPE_NOTE = "reshape copies where .view() would raise: the CTG101 fix, correct but not free"
VIEW_OPS = sinks.runtime("view")
RAW_MEMORY_OPS = sinks.runtime("raw_memory")
DEVICE_MOVES = sinks.runtime("device_move")
REGISTRATIONS = sinks.runtime("buffer") | sinks.runtime("parameter")
LAYOUT_CHECKS = sinks.runtime("layout_branch")


@dataclass(frozen=True)
class Hazard:
    """One occurrence. `layout` is the offending tensor's; `origin` where it became
    non-contiguous (if the tracer saw it happen)."""

    code: str
    site: Site
    op: str
    layout: Optional[TensorLayout]
    bytes_copied: int = 0
    origin: Optional[Site] = None
    note: str = ""
    chain: tuple[Site, ...] = ()  # the user frames that called `site`'s function, innermost first


# the codes of code that needs row-major memory, where a kept device copy is CTG104 too
MOVE_CONSUMERS = frozenset({"CTG101", "CTG106", "CTG107"})


def watched_op(op: str) -> bool:
    """The ops any check below can fire on; the tracer fully records only these."""
    return (op in VIEW_OPS or op in COPYING_OPS or op in RAW_MEMORY_OPS or op in DEVICE_MOVES
            or op in REGISTRATIONS or op.startswith("torch.distributed.") or is_inplace(op)
            or op in LAYOUT_CHECKS or op.startswith("torch.ops.") or op in KNOWN
            or op.startswith(("triton:", "ext:")))


def _non_contiguous(argument: Optional[Argument]) -> bool:
    return argument is not None and not argument.layout.contiguous


def _same_tensor(layout: Optional[TensorLayout], other: TensorLayout) -> bool:
    return layout is not None and (layout.data_ptr, layout.shape, layout.strides) == \
        (other.data_ptr, other.shape, other.strides)


def _enough_strides(count: int, layout: TensorLayout) -> bool:
    """All strides passed (`x.stride()`, one per dim), or all but a unit last one."""
    dims = len(layout.shape)
    return count == -1 or count >= dims or \
        count == dims - 1 and bool(layout.strides) and layout.strides[-1] == 1


class HazardFinder:
    """Turns observations into hazards. Copies made by an explicit `.contiguous()` are the
    recommended fix, so they are reported (as CTG201) only with `explicit_copies=True`.
    CTG202 covers modules whose class is defined in user files (`is_user_file`) and that user
    code called directly: torch's own modules (e.g. a batch_first MultiheadAttention, whose
    output is transposed back) are not something the user can fix. Stateful only to link a
    copy with an in-place write on the same line (CTG111) and to report a module output once,
    not once per enclosing module that passes it through (CTG202)."""

    def __init__(self, explicit_copies: bool = False,
                 is_user_file: Callable[[str], bool] = lambda name: True,
                 backend: str = "any") -> None:
        if backend not in collectives.BACKENDS:
            raise ValueError(f"unknown backend {backend!r} (known: "
                             f"{', '.join(collectives.BACKENDS)})")
        self.explicit_copies = explicit_copies
        self.is_user_file = is_user_file
        self.backend = backend
        self.contracts = RuntimeContracts()
        self._copies: dict[tuple, Site] = {}
        self._module_outputs: dict[tuple, Site] = {}
        self._moved: dict[int, tuple[Site, str]] = {}  # storage of a kept device copy

    def hazards(self, obs: Observation) -> Iterator[Hazard]:
        """Each hazard of the observation; where one of code that needs row-major memory falls
        on a tensor a device copy made, CTG104 too (the static rule's place)."""
        for hazard in self._hazards(obs):
            yield hazard
            moved = self._moved.get(hazard.layout.storage_ptr) \
                if hazard.code in MOVE_CONSUMERS and hazard.layout is not None else None
            if moved is not None:
                site, op = moved
                yield Hazard("CTG104", hazard.site, hazard.op, hazard.layout,
                             origin=hazard.origin,
                             note=f"the copy `{op}` at line {site.line} kept the strides")

    def _hazards(self, obs: Observation) -> Iterator[Hazard]:
        if obs.kind == "module":
            yield from self._module_output(obs)
            return
        op, receiver = obs.op, obs.receiver
        if op in VIEW_OPS and obs.error and _non_contiguous(receiver):
            yield Hazard("CTG101", obs.site, op, receiver.layout, origin=receiver.origin,
                         note=obs.error_message or "")
        elif op in COPYING_OPS and _non_contiguous(receiver) and obs.result is not None:
            yield from self._copy(obs, receiver, obs.result)
        elif op in RAW_MEMORY_OPS and _non_contiguous(receiver) and obs.direct:
            yield from self._raw_read(obs, receiver)
        elif op in DEVICE_MOVES and obs.result is not None and _non_contiguous(receiver):
            self._note_move(obs, receiver, obs.result)
        elif op in REGISTRATIONS:
            for argument in obs.arguments:
                if _non_contiguous(argument) and not argument.layout.channels_last:
                    yield Hazard("CTG103", obs.site, op, argument.layout,
                                 origin=argument.origin)
        elif op.startswith("torch.distributed."):
            yield from self._collective(obs)
        elif op == "torch.save":
            yield from self._save(obs)
        elif op in LAYOUT_CHECKS:
            yield from self._guard(obs)
        elif op.startswith(("torch.ops.", "triton:", "ext:")) or op in KNOWN:
            yield from self._contract(obs)
        if is_inplace(op) and receiver is not None:
            yield from self._inplace(obs, receiver)

    def _copy(self, obs: Observation, receiver: Argument,
              result: TensorLayout) -> Iterator[Hazard]:
        source = receiver.layout
        if result.numel == 0 or result.storage_ptr is None \
                or result.storage_ptr == source.storage_ptr:
            return
        if len(self._copies) > 1024:
            self._copies.clear()
        self._copies[(result.data_ptr, result.shape)] = obs.site
        if obs.op in EXPLICIT_COPIES and not self.explicit_copies:
            return  # `.contiguous()` is the user's deliberate fix, not a hidden cost
        note = RESHAPE_NOTE if obs.op in RESHAPES else ""
        yield Hazard("CTG201", obs.site, obs.op, source, bytes_copied=result.nbytes,
                     origin=receiver.origin, note=note)

    def _raw_read(self, obs: Observation, receiver: Argument) -> Iterator[Hazard]:
        """Raw memory of a non-contiguous tensor is a hazard unless its strides travel with it:
        a user call on the stack, from the innermost outward, that passes this tensor's strides
        (`kernel[grid](x, x.stride(0), x.stride(1))`, `lib.f(x.data_ptr(), *x.stride())`) hands
        the callee what it needs to honour the layout. Such a call that is a Triton launch
        addressing another tensor with this one's strides (or this one with another's) is the
        hazard when their strides differ (CTG114 at the launch)."""
        layout = receiver.layout
        honoured = False
        frame = sys._getframe(1)
        while frame is not None and not honoured:
            path = os.path.abspath(frame.f_code.co_filename)
            if not self.is_user_file(path):
                frame = frame.f_back
                continue
            line = frame.f_lineno
            passed = self.contracts.strided_calls(path).get(line)
            if passed:
                values = frame.f_locals
                honoured = any(_same_tensor(summarize(values.get(name)), layout) and
                               _enough_strides(count, layout) for name, count in passed.items())
                if honoured:
                    yield from self._cross_strides(frame, path, line, values, receiver)
            frame = frame.f_back
        if not honoured:
            yield Hazard("CTG106", obs.site, obs.op, layout, origin=receiver.origin)

    def _cross_strides(self, frame, path: str, line: int, values: dict,
                       receiver: Argument) -> Iterator[Hazard]:
        for target, source, kernel in self.contracts.cross_strides(path, line):
            addressed, strides = summarize(values.get(target)), summarize(values.get(source))
            if addressed is None or strides is None or addressed.strides == strides.strides:
                continue
            if not (_same_tensor(addressed, receiver.layout) or
                    _same_tensor(strides, receiver.layout)):
                continue
            yield Hazard("CTG114", Site(path, line, frame.f_code.co_name), f"triton:{kernel}",
                         receiver.layout, origin=receiver.origin,
                         note=f"`{kernel}` addresses `{target}` (strides {addressed.strides}) "
                              f"with the strides of `{source}` {strides.strides}")

    def _note_move(self, obs: Observation, receiver: Argument, result: TensorLayout) -> None:
        """A move to another device, or a same-device `.to(device, copy=True)` (same dtype, new
        storage: the CPU-observable form of the same stride-preserving copy), whose result
        kept non-contiguous, non-channels_last strides: its storage is noted, and code that
        needs row-major memory on it later is CTG104 as well (`hazards`). The move itself is
        no hazard: most moved tensors feed ops that honour strides. Dtype casts on one
        device are not moves."""
        source = receiver.layout
        moved = result.device != source.device
        copied = result.dtype == source.dtype and result.storage_ptr is not None \
            and result.storage_ptr != source.storage_ptr
        if (moved or copied) and not result.contiguous and not result.channels_last and \
                result.storage_ptr is not None:
            if len(self._moved) > 1024:
                self._moved.clear()
            self._moved[result.storage_ptr] = (obs.site, obs.op)

    def _save(self, obs: Observation) -> Iterator[Hazard]:
        """A saved tensor that is the only one saved from a storage larger than itself: the
        file holds the whole storage. Several saved views of one storage (flat parameter
        buffers) share it deliberately, so they are not reported."""
        per_storage: dict[int, int] = {}
        for argument in obs.arguments:
            if argument.layout.storage_ptr is not None:
                ptr = argument.layout.storage_ptr
                per_storage[ptr] = per_storage.get(ptr, 0) + 1
        for argument in obs.arguments:
            layout = argument.layout
            if layout.shares_storage and per_storage.get(layout.storage_ptr) == 1:
                yield Hazard("CTG112", obs.site, obs.op, layout, origin=argument.origin,
                             note=f"argument {argument.name}")

    def _wrote_into_copy(self, obs: Observation, layout: TensorLayout) -> bool:
        return self._copies.get((layout.data_ptr, layout.shape)) == obs.site

    def _inplace(self, obs: Observation, receiver: Argument) -> Iterator[Hazard]:
        """CTG108 for a write of elements into overlapping memory (a layout change such as
        `transpose_` writes none), CTG111 for any in-place change of a copy that is lost."""
        if receiver.layout.overlapping and writes_data(obs.op):
            yield Hazard("CTG108", obs.site, obs.op, receiver.layout, origin=receiver.origin,
                         note=obs.error_message or "")
        elif self._wrote_into_copy(obs, receiver.layout):
            yield Hazard("CTG111", obs.site, obs.op, receiver.layout)

    def _collective(self, obs: Observation) -> Iterator[Hazard]:
        """Per the backend table (catalogue/collectives.py), whatever backend this run uses:
        a CPU/gloo run warns about what fails on NCCL."""
        for argument in obs.arguments:
            slot = collectives.slot(obs.op, argument.name)
            if slot is None:
                continue
            effect = slot.effect(self.backend)
            if effect and _non_contiguous(argument):
                yield Hazard("CTG107", obs.site, obs.op, argument.layout,
                             origin=argument.origin, note=f"argument {argument.name}: {effect}")
            elif slot.writes and effect and self._wrote_into_copy(obs, argument.layout):
                yield Hazard("CTG111", obs.site, obs.op, argument.layout,
                             note=f"argument {argument.name}")

    def _guard(self, obs: Observation) -> Iterator[Hazard]:
        """`assert x.is_contiguous()` (or a stride check) failing in a function whose contract
        the static pass learned: the hazard is the caller's, named by the call chain."""
        receiver = obs.receiver
        if receiver is None or receiver.layout.contiguous:
            return
        guard = self.contracts.guard_at(obs.site.file, obs.site.line)
        if guard is None:
            return
        kind, what = guard
        if kind == "stride" or kind == "inner" and receiver.layout.strides and \
                receiver.layout.strides[-1] == 1:
            return  # a check the tensor may pass: only contiguity and unit last stride count
        yield Hazard("CTG114", obs.site, obs.op, receiver.layout, origin=receiver.origin,
                     note=f"the function {what}, and its caller passed a non-contiguous "
                          f"tensor")

    def _contract(self, obs: Observation) -> Iterator[Hazard]:
        """A custom op, a Triton launch or a library call with a contract got a
        non-contiguous tensor."""
        op = obs.op
        if op in KNOWN:
            effect = KNOWN[op].effect
        elif op.startswith("triton:"):
            if not self.contracts.strideless_launch(obs.site.file, obs.site.line):
                return  # the launch passes strides: the kernel can honour them
            effect = "the Triton kernel gets no strides and reads memory order"
        elif op.startswith("ext:"):
            effect = f"the extension function {EXTENSION_EFFECT}"
        else:
            effect = self.contracts.op_contract(op) or \
                "custom op of unknown contract (kernels usually need contiguous inputs)"
        for argument in obs.arguments:
            if _non_contiguous(argument):
                yield Hazard("CTG114", obs.site, op, argument.layout, origin=argument.origin,
                             note=f"argument {argument.name}: {effect}")

    def _module_output(self, obs: Observation) -> Iterator[Hazard]:
        if not obs.direct or obs.defined_in is None or not self.is_user_file(obs.defined_in):
            return  # only the user's own modules, called from the user's code
        if any(not a.layout.contiguous and not a.layout.channels_last for a in obs.arguments):
            return  # a non-contiguous input passed along; the hazard is upstream
        for result in obs.results:
            if result.contiguous or result.channels_last or result.numel == 0:
                continue
            key = (result.data_ptr, result.shape, result.strides)
            seen_at = self._module_outputs.get(key)
            if len(self._module_outputs) > 256:
                self._module_outputs.clear()
            if seen_at is not None and seen_at != obs.site:
                continue  # an enclosing module returned the same tensor
            self._module_outputs[key] = obs.site
            yield Hazard("CTG202", obs.site, obs.op, result)
