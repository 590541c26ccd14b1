"""Names for what torch did: which ops are views, moves, raw-memory reads, in-place writes
or copies-when-needed, which error messages are layout errors, and the few facts about the
program text the checks need. Shared by the claims and the fixed-program check.
"""
from __future__ import annotations

import ast
import re
from dataclasses import dataclass

from contiglint.verify.observation import Observation

VIEW_ERROR = re.compile(r"view size is not compatible|must be 1 to view|spans across two "
                        r"contiguous subspaces")
OVERLAP_ERROR = re.compile(r"more than one element of the written-to tensor")
CONTIGUITY_ERROR = re.compile(r"(has to|must) be contiguous|Tensors must be contiguous")
LAYOUT_ERROR = re.compile("|".join(p.pattern for p in (VIEW_ERROR, OVERLAP_ERROR,
                                                       CONTIGUITY_ERROR)))

VIEWS = frozenset({"Tensor.view", "Tensor.view_as"})
RAW_MEMORY = frozenset({"Tensor.data_ptr", "Tensor.untyped_storage", "Tensor.storage",
                        "Tensor._storage", "Tensor.numpy"})
DEVICE_MOVES = frozenset({"Tensor.to", "Tensor.cuda", "Tensor.cpu"})
REGISTRATIONS = frozenset({"nn.Module.register_buffer", "nn.Parameter"})
LAYOUT_QUERIES = frozenset({"Tensor.is_contiguous", "Tensor.stride"})
TRACERS = frozenset({"torch.jit.trace", "torch.jit.trace_module", "torch.export.export",
                     "torch.onnx.export"})
# ops that return a view (or self) when they can and a copy otherwise (CTG111)
MAYBE_COPIES = frozenset({"Tensor.contiguous", "Tensor.reshape", "torch.reshape",
                          "Tensor.reshape_as", "Tensor.flatten", "torch.flatten", "Tensor.ravel",
                          "torch.ravel", "Tensor.to", "Tensor.float", "Tensor.half",
                          "Tensor.double", "Tensor.bfloat16", "Tensor.type", "Tensor.cuda",
                          "Tensor.cpu"})
# gloo handles non-contiguous tensors correctly in these (torch-layout-facts.md F)
SAFE_COLLECTIVES = frozenset({"all_gather", "all_gather_into_tensor", "gather", "all_to_all",
                              "_all_gather_base", "all_gather_single", "batch_isend_irecv",
                              "reduce_scatter_tensor"})
_INPLACE_DUNDERS = frozenset({
    "__setitem__", "__iadd__", "__isub__", "__imul__", "__itruediv__", "__ifloordiv__",
    "__imod__", "__ipow__", "__iand__", "__ior__", "__ixor__", "__ilshift__", "__irshift__",
    "__imatmul__"})
_NOT_WRITES = frozenset({"requires_grad_", "retain_grad", "share_memory_", "detach_",
                         "record_stream", "set_", "resize_", "unsqueeze_", "squeeze_",
                         "transpose_", "t_", "as_strided_", "rename_", "swapaxes_", "swapdims_"})


def is_inplace(op: str) -> bool:
    if not op.startswith("Tensor."):
        return False
    name = op[len("Tensor."):]
    return name in _INPLACE_DUNDERS or (
        name.endswith("_") and not name.startswith("_") and name not in _NOT_WRITES)


def copied(observation: Observation) -> bool:
    """The op returned new memory rather than its receiver's (a copy, not a view or self)."""
    receiver, result = observation.receiver, observation.result
    return receiver is not None and result is not None and result.storage_ptr is not None \
        and result.storage_ptr != receiver.layout.storage_ptr


@dataclass(frozen=True)
class SourceFacts:
    """What the checks need from the program text: the lines whose statement drops the value
    of its expression (`x.contiguous().add_(1)` as a statement, `f(x)[0] = v`), so that an
    in-place write into a temporary there is lost; the layout guards of its functions."""

    discarded: frozenset = frozenset()
    # line -> kind ("full", "inner", "stride") of each layout guard the contract pass learned
    # (`assert x.is_contiguous()`, `torch._check(...)`, `if x.stride(-1) != 1: raise`)
    guards: tuple[tuple[int, str], ...] = ()

    @staticmethod
    def of(text: str) -> "SourceFacts":
        from contiglint.layout.contracts import summarize

        try:
            tree = ast.parse(text)
        except (SyntaxError, ValueError):
            return SourceFacts()
        guards = tuple(sorted((line, kind) for line, (kind, _) in
                              summarize(tree, "fixture", "<fixture>").guards.items()))
        lines: set[int] = set()
        for node in ast.walk(tree):
            dropped = isinstance(node, ast.Expr) or (
                isinstance(node, (ast.Assign, ast.AugAssign))
                and any(isinstance(t, ast.Subscript) and isinstance(t.value, ast.Call)
                        for t in (node.targets if isinstance(node, ast.Assign)
                                  else [node.target])))
            if dropped:
                lines.update(range(node.lineno, (node.end_lineno or node.lineno) + 1))
        return SourceFacts(frozenset(lines), guards)
