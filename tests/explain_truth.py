"""What explain claims of each named tensor, held against the tensors torch really made.

`bound_tensors` runs functions of a module under a line tracer and records, for every local
name a statement of that file binds to a tensor, the tensor's shape, strides and contiguity
(the binding is seen at the next line event of the same frame). `check_claims` compares them
with what explain says of the same binding: only what explain claims is checked (a literal
size, a stride it gives, contiguous yes or no, the order of the dims in memory); "unknown"
and `?` claim nothing.
"""
from __future__ import annotations

import ast
import sys
from dataclasses import dataclass

import torch

from contiglint.layout.explain.describe import Layout, describe
from contiglint.runtime.static_compare import disagreements


@dataclass(frozen=True)
class Real:
    shape: tuple[int, ...]
    strides: tuple[int, ...]
    contiguous: bool


def bound_tensors(path: str, run) -> dict[tuple[int, str], list[Real]]:
    """(line of the binding statement's last line event, name) -> the tensors bound there.
    An exception `run` raises ends the run: what was bound until then is kept."""
    seen: dict[tuple[int, str], list[Real]] = {}
    frames: dict[int, tuple[int, dict]] = {}  # frame id -> (last line, locals then)

    def note(frame) -> None:
        line, before = frames.get(id(frame), (None, {}))
        now = dict(frame.f_locals)
        if line is not None:
            for name, value in now.items():
                if before.get(name, _MISSING) is not value and isinstance(value, torch.Tensor) \
                        and value.layout is torch.strided and value.numel() > 0:
                    seen.setdefault((line, name), []).append(Real(
                        tuple(value.shape), tuple(value.stride()), value.is_contiguous()))
        frames[id(frame)] = (frame.f_lineno, now)

    def local(frame, event, arg):
        if event in ("line", "return"):
            note(frame)
            if event == "return":
                frames.pop(id(frame), None)
        return local

    def calls(frame, event, arg):
        if frame.f_code.co_filename == path:
            return local
        return None

    sys.settrace(calls)
    try:
        run()
    except Exception:  # noqa: BLE001 - a fixture case may raise: its bug, or no GPU
        pass
    finally:
        sys.settrace(None)
    return seen


_MISSING = object()


def claim_of(analysis, node: ast.Name) -> Layout:
    """What explain says of a binding, joined over every call context."""
    return describe(analysis.observer.tensor(node))


def bindings(analysis) -> dict[tuple[int, str], list[ast.Name]]:
    """(line, name) -> the binding nodes whose statement that line event can belong to."""
    out: dict[tuple[int, str], list[ast.Name]] = {}
    for node, statement in analysis.definitions.everything().statement.items():
        if analysis.observer.tensor(node) is None:
            continue
        last = statement.lineno if isinstance(statement, (ast.For, ast.AsyncFor, ast.With)) \
            else statement.end_lineno
        for line in range(statement.lineno, last + 1):
            out.setdefault((line, node.id), []).append(node)
    return out


def check_claims(analysis, observed: dict) -> tuple[int, list[str]]:
    """(how many claims were checked, the ones torch refuted)."""
    checked, wrong = 0, []
    table = bindings(analysis)
    for (line, name), reals in observed.items():
        nodes = table.get((line, name), [])
        if len(nodes) != 1:
            continue  # no binding of that name there, or several (the line is ambiguous)
        layout = claim_of(analysis, nodes[0])
        for real in reals:
            for problem in _refutations(layout, real):
                wrong.append(f"line {line} `{name}`: explain says {problem}; torch made shape "
                             f"{real.shape} strides {real.strides}")
            checked += 1
    return checked, wrong


def _refutations(layout: Layout, real: Real):
    yield from disagreements(layout, real.shape, real.strides)
    if layout.tensor and layout.memory_order is not None and not layout.some_paths \
            and layout.shape is not None and len(layout.shape) == len(real.shape):
        live = [d for d in layout.memory_order if real.shape[d] > 1]
        if any(real.strides[a] < real.strides[b] for a, b in zip(live, live[1:])):
            yield f"memory order {layout.memory_order}"
