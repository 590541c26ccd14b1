"""Shared wording and related locations, so every rule explains a layout the same way."""
from __future__ import annotations

from contiglint.findings import Related
from contiglint.layout.sinks.records import Sink
from contiglint.layout.model.values import Tensor


def made_by(tensor: Tensor) -> str:
    """"made non-contiguous" (with "on some paths"): what happened to the layout. Where and
    by which op it happened is a related location (`related()`), not part of the message."""
    how = {"permuted": "made non-contiguous", "strided": "sliced into a non-contiguous view",
           "broadcast": "expanded (its elements share memory)"}.get(
        tensor.kind.value, "of unknown layout (reported because of --strict)")
    return how + (" on some paths" if tensor.maybe else "")


def related(sink: Sink, tensor: Tensor) -> tuple[Related, ...]:
    """The origin of the layout and each call that carried the tensor to the sink."""
    places = []
    if tensor.origin is not None:
        places.append(Related(tensor.origin.line, tensor.origin.column,
                              f"made non-contiguous here by `{tensor.origin.op}`"))
    if tensor.kept_by is not None and tensor.noncontiguous:
        places.append(Related(tensor.kept_by.line, tensor.kept_by.column,
                              f"the copy made here by `{tensor.kept_by.op}` kept those strides "
                              f"(a device or dtype copy of a permuted tensor is not contiguous)"))
    for depth, site in enumerate(reversed(carried_by(sink, tensor))):
        how = "passed in by this call to" if depth == 0 else "reached through this call to"
        places.append(Related(site.line, site.column, f"{how} `{callee_name(site.callee)}`"))
    return tuple(places)


def carried_by(sink: Sink, tensor: Tensor) -> tuple:
    """The calls of the sink's chain that carried the tensor from where its layout was made
    to the sink: those after the function that made it. A layout made in the function that
    holds the sink came through no call, whichever callers the analysis reached it from. A
    layout made nowhere in the chain's functions (module code, a class attribute, an
    unknown parameter of the outermost function) came through all of them."""
    chain = sink.chain
    if tensor.origin is None or not chain:
        return chain
    line = tensor.origin.line
    function = sink.function
    if function is not None and function.lineno <= line <= function.end_lineno:
        return ()
    for at in range(len(chain) - 1, -1, -1):
        span = chain[at].caller
        if span is not None and span[0] <= line <= span[1]:
            return chain[at:]
    return chain


def callee_name(key: str) -> str:
    """`Attention.forward` for methods; nested functions have no readable key."""
    return "a nested function" if key.startswith("<local>") else key


def called_from(sink: Sink) -> str:
    """Kept for the rules' message templates: the call that brought the tensor into the
    function is a related location (`related()`), so the message says nothing of it."""
    return ""
