"""What each rule claims, in terms torch can confirm or refute at run time.

For every rule code, a `Claim` reads the observations made at one line in one case run and
returns `Evidence`: which tensor the rule is about, whether torch showed the hazard there
(`hazard`), and whether torch showed the opposite of the model's layout claim (`contradicts`,
e.g. the model said non-contiguous and the tensor was contiguous). The comparison then says,
per finding: confirmed (some run showed the hazard), refuted (every run contradicted the
model), unconfirmed (the tensor was as claimed but the harm did not show on these inputs), not
run; and per unflagged line: missed (a run showed the hazard of a rule with `misses=True`).

The semantics follow the rule catalogue and docs/layout-facts.md; only what torch shows
directly counts (a raised error, a stride, a storage address), never the model's own opinion.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Iterator, Optional, Sequence

from contiglint.verify.layout_summary import TensorLayout
from contiglint.verify.observation import Argument, Observation
from contiglint.verify.op_kinds import (CONTIGUITY_ERROR, LAYOUT_ERROR,
                                        LAYOUT_QUERIES, MAYBE_COPIES, OVERLAP_ERROR, RAW_MEMORY,
                                        REGISTRATIONS, TRACERS, VIEW_ERROR,
                                        VIEWS, SourceFacts, copied, gloo_hazard,
                                        is_inplace)
from contiglint.verify.records import CaseRun

__all__ = ["CLAIMS", "ANY_LAYOUT_ERROR", "Claim", "Evidence", "LAYOUT_ERROR", "SourceFacts",
           "describe"]


@dataclass(frozen=True)
class Evidence:
    case: str
    observation: Observation
    tensor: Optional[TensorLayout]
    hazard: bool
    contradicts: bool
    note: str = ""
    missable: bool = True  # a hazard that, on a line without the finding, counts as missed


def describe(layout: Optional[TensorLayout]) -> str:
    if layout is None:
        return "no tensor"
    flags = ["contiguous" if layout.contiguous else "non-contiguous"]
    if layout.channels_last:
        flags.append("channels_last")
    if layout.overlapping:
        flags.append("overlapping")
    elif not layout.contiguous and not layout.dense:
        flags.append("non-dense")
    if layout.shares_storage:
        flags.append("storage larger than the tensor")
    return (f"shape {tuple(layout.shape)} strides {tuple(layout.strides)} {', '.join(flags)}"
            + (f" on {layout.device}" if layout.device != "cpu" else ""))


def _collective(op: str) -> Optional[str]:
    return op.rsplit(".", 1)[-1] if op.startswith("torch.distributed.") else None


Gather = Callable[[Sequence[Observation], CaseRun, SourceFacts], Iterator[Evidence]]


@dataclass(frozen=True)
class Claim:
    code: str
    confirms: str  # what torch must show, for messages and the README
    gather: Gather
    misses: bool = True  # an unflagged line showing the hazard counts as missed
    # read the observations made in the functions called from the line (called_from), not
    # those made on it: the finding is at a call, the hazard in the callee
    through_calls: bool = False


def _on_tensor(case: str, obs: Observation, argument: Optional[Argument], hazard: bool,
               note: str = "") -> Evidence:
    layout = argument.layout if argument is not None else None
    contiguous = layout is not None and layout.contiguous
    return Evidence(case, obs, layout, hazard, contiguous and not hazard, note)


def _views(observations, run, source):
    for obs in observations:
        if obs.op in VIEWS and obs.receiver is not None:
            raised = bool(obs.error) and bool(VIEW_ERROR.search(obs.error_message or ""))
            yield _on_tensor(run.case, obs, obs.receiver, raised,
                             f"{obs.op} raised: {obs.error_message}" if raised else
                             f"{obs.op} succeeded")


def _escapes(observations, run, source):
    for obs in run.escapes:
        if obs.kind in ("return", "setattr") and obs in observations:
            for argument in obs.arguments:
                layout = argument.layout
                partial = not layout.contiguous and not layout.dense and not layout.overlapping
                # CTG102 leaves returned slices of fresh tensors to the caller's rules
                yield Evidence(run.case, obs, layout, partial, layout.contiguous,
                               f"{obs.op} {argument.name}", missable=obs.kind == "setattr")


def _registrations(observations, run, source):
    for obs in observations:
        if obs.op in REGISTRATIONS:
            for argument in obs.arguments:
                yield _on_tensor(run.case, obs, argument, not argument.layout.contiguous,
                                 f"{obs.op} {argument.name}")


def _moved_consumers(observations, run, source):
    """CTG104 is reported where a device copy that kept a permuted layout reaches code that
    needs row-major memory: what torch shows there is that code's hazard (the view raised; raw
    memory, a kernel or a collective got a non-contiguous tensor)."""
    for claim in (_views, _raw_memory, _collectives):
        yield from claim(observations, run, source)


def _traces(observations, run, source):
    for obs in observations:
        if obs.op in TRACERS:
            for argument in obs.arguments:
                yield _on_tensor(run.case, obs, argument, not argument.layout.contiguous,
                                 f"example input {argument.name}")
        elif obs.op in LAYOUT_QUERIES:
            traced = run.observations.index(obs) in run.tracing
            yield Evidence(run.case, obs, obs.receiver.layout if obs.receiver else None,
                           traced, not traced, f"{obs.op} " + (
                               "while torch.jit.trace recorded" if traced else "not traced"))


def _raw_memory(observations, run, source):
    """A non-contiguous receiver, or the pointer of a copy made on this line and dropped at
    once (`t.contiguous().data_ptr()`: the memory is freed when the statement ends)."""
    for obs in observations:
        if obs.op in RAW_MEMORY and obs.receiver is not None:
            layout = obs.receiver.layout
            index = run.observations.index(obs)
            maker = _made_by(run.observations[:index], layout, obs.line)
            temporary = maker is not None and copied(maker)  # chained: nothing holds it
            yield _on_tensor(run.case, obs, obs.receiver, temporary or not layout.contiguous,
                             obs.op + (f" of a temporary copy made by {maker.op}"
                                       if temporary else ""))
    if not any(obs.op in RAW_MEMORY for obs in observations):  # a kernel launch on this line
        for obs in observations:
            if obs.kind == "call":
                for argument in obs.arguments:
                    yield _on_tensor(run.case, obs, argument, not argument.layout.contiguous,
                                     f"{obs.op}() received {argument.name}")


def _collectives(observations, run, source):
    for obs in observations:
        name = _collective(obs.op)
        if name is None or not gloo_hazard(name):
            continue
        raised = bool(obs.error) and bool(CONTIGUITY_ERROR.search(obs.error_message or ""))
        for argument in obs.arguments:
            yield _on_tensor(run.case, obs, argument,
                             raised or not argument.layout.contiguous,
                             f"{obs.op} {argument.name}")


def _overlapping_writes(observations, run, source):
    for obs in observations:
        if is_inplace(obs.op) and obs.receiver is not None:
            layout = obs.receiver.layout
            raised = bool(obs.error) and bool(OVERLAP_ERROR.search(obs.error_message or ""))
            hazard = raised or layout.overlapping
            yield Evidence(run.case, obs, layout, hazard, not hazard,
                           f"{obs.op} raised: {obs.error_message}" if raised else obs.op)


def _repeated_copies(observations, run, source):
    sources: dict[tuple, int] = {}
    for obs in observations:
        if obs.op == "Tensor.contiguous" and obs.receiver is not None:
            layout = obs.receiver.layout
            key = (layout.data_ptr, layout.shape, layout.strides)
            if copied(obs):
                sources[key] = sources.get(key, 0) + 1
            yield Evidence(run.case, obs, layout, sources.get(key, 0) >= 2, layout.contiguous,
                           f"copied the same tensor {sources.get(key, 0)} times")


def _channels_last_dropped(observations, run, source):
    for obs in observations:
        if obs.op == "Tensor.contiguous" and obs.receiver is not None and obs.result:
            layout = obs.receiver.layout
            dropped = layout.channels_last and obs.result.contiguous and copied(obs)
            yield Evidence(run.case, obs, layout, dropped, not layout.channels_last,
                           f"result {describe(obs.result)}")


def _writes_into_copies(observations, run, source):
    for obs in observations:
        if obs.kind not in ("op", "entry"):
            continue
        name = _collective(obs.op)
        if is_inplace(obs.op):
            targets = [obs.receiver] if obs.receiver is not None else []
        elif name is not None and gloo_hazard(name):
            targets = list(obs.arguments)
        else:
            targets = [a for a in obs.arguments if a.name == "out"]  # torch.op(..., out=t)
        if not targets:
            continue
        index = run.observations.index(obs)
        for target in targets:
            maker = _made_by(run.observations[:index], target.layout, obs.line)
            if maker is not None:
                wrote_copy = copied(maker)
                kept = obs.line not in source.discarded
                yield Evidence(run.case, obs, target.layout, wrote_copy and not kept,
                               not wrote_copy,
                               f"{obs.op} into the result of {maker.op} (line {maker.line}), "
                               + ("a view of the original" if not wrote_copy else
                                  "a copy whose value the statement keeps" if kept else
                                  "a copy the statement drops: the write is lost"))


def _made_by(before: Sequence[Observation], layout: TensorLayout,
             line: int) -> Optional[Observation]:
    """The op on this line that made this very tensor (same address, shape and strides), when
    it is one that copies or not depending on the layout, dtype or device."""
    for obs in reversed(before):
        if obs.line == line and obs.kind == "op" and obs.receiver is not None and any(
                r.data_ptr == layout.data_ptr and r.shape == layout.shape
                and r.strides == layout.strides for r in obs.results):
            if is_inplace(obs.op):
                continue  # `x.contiguous().mul_(a).add_(b)`: add_ writes what mul_ wrote
            return obs if obs.op in MAYBE_COPIES else None
    return None


def _saves(observations, run, source):
    for obs in observations:
        if obs.op == "torch.save":
            for argument in obs.arguments:
                yield _on_tensor(run.case, obs, argument, argument.layout.shares_storage,
                                 f"saved {argument.name}")


def _redundant_contiguous(observations, run, source):
    for obs in observations:
        if obs.op == "Tensor.contiguous" and obs.receiver is not None:
            layout = obs.receiver.layout
            yield Evidence(run.case, obs, layout, layout.contiguous, not layout.contiguous,
                           "returned the tensor itself" if layout.contiguous else "copied")


def _contracts(observations, run, source):
    """In the functions called from the finding's line: a layout guard the contract pass
    learned that ran on a tensor failing it (or raised a contiguity error), or a raw read, a
    custom op or a Triton launch that got a non-contiguous tensor."""
    guards = dict(source.guards)
    for obs in observations:
        receiver = obs.receiver
        if obs.error and CONTIGUITY_ERROR.search(obs.error_message or ""):
            yield _on_tensor(run.case, obs, receiver, True,
                             f"{obs.op} raised: {obs.error_message}")
        elif obs.op in LAYOUT_QUERIES and obs.line in guards and receiver is not None:
            layout, kind = receiver.layout, guards[obs.line]
            fails = not layout.contiguous if kind != "inner" else \
                bool(layout.strides) and layout.strides[-1] != 1 and layout.numel > 1
            yield Evidence(run.case, obs, layout, fails, not fails,
                           f"the guard at line {obs.line} " + ("fails" if fails else "passes"))
        elif obs.op in RAW_MEMORY and receiver is not None:
            yield _on_tensor(run.case, obs, receiver, not receiver.layout.contiguous,
                             f"{obs.op} at line {obs.line}")
        elif obs.op.startswith(("torch.ops.", "triton:")):
            for argument in obs.arguments:
                yield _on_tensor(run.case, obs, argument, not argument.layout.contiguous,
                                 f"{obs.op} {argument.name} at line {obs.line}")


def _layout_errors(observations, run, source):
    for obs in observations:
        if obs.error and LAYOUT_ERROR.search(obs.error_message or ""):
            yield _on_tensor(run.case, obs, obs.receiver, True,
                             f"{obs.op} raised: {obs.error_message}")


CLAIMS: dict[str, Claim] = {claim.code: claim for claim in (
    Claim("CTG101", "the view raised the view error", _views),
    Claim("CTG102", "a returned or stored tensor is a non-dense, non-contiguous view",
          _escapes),
    Claim("CTG103", "register_buffer / nn.Parameter received a non-contiguous tensor",
          _registrations),
    # misses=False: at the consumer, torch does not show that a device copy made the tensor
    Claim("CTG104", "code that needs row-major memory got a non-contiguous tensor (a kept "
          "device copy, by the static pass)", _moved_consumers, misses=False),
    Claim("CTG105", "torch.jit.trace got a non-contiguous example, or a layout query ran "
          "while tracing", _traces),
    # misses=False: torch cannot tell a pointer compared for identity from one read through
    Claim("CTG106", "data_ptr/untyped_storage/storage of a non-contiguous tensor (or of a "
          "temporary copy)", _raw_memory, misses=False),
    Claim("CTG107", "a collective that mishandles them got a non-contiguous tensor (or raised "
          "'must be contiguous')", _collectives),
    Claim("CTG108", "an in-place write into an overlapping tensor (or the overlap error)",
          _overlapping_writes),
    # misses=False: the tracer cannot see whether the copied tensor changed in between
    # (in-place updates, optimizer steps), i.e. whether the copy was really loop-invariant
    Claim("CTG109", "the same tensor copied by `.contiguous()` twice on one line",
          _repeated_copies, misses=False),
    # misses=False: torch cannot tell a wanted NCHW copy (before a `.view`) from a careless one
    Claim("CTG110", "`.contiguous()` turned a channels_last tensor into NCHW",
          _channels_last_dropped, misses=False),
    Claim("CTG111", "an in-place write into the copy a contiguous/reshape/flatten/to made",
          _writes_into_copies),
    Claim("CTG112", "torch.save of a tensor whose storage is larger than the tensor", _saves),
    Claim("CTG113", "`.contiguous()` on a contiguous tensor (it returned the tensor itself)",
          _redundant_contiguous, misses=False),
    # misses=False: the hazard in the callee is reported at one call of the chain (the one
    # that made the layout), not at every call it passes through
    Claim("CTG114", "in the callee: a layout guard failed, or a raw read, custom op or Triton "
          "launch got a non-contiguous tensor", _contracts, misses=False, through_calls=True),
)}

# Layout errors on lines that no rule flagged at all, whatever the op.
ANY_LAYOUT_ERROR = Claim("layout-error", "torch raised a layout error", _layout_errors)
