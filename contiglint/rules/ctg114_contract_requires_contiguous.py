"""CTG114: a non-contiguous tensor passed where the callee's contract requires a contiguous one."""
from __future__ import annotations

import os
from dataclasses import replace
from typing import Iterable, Optional

from contiglint.findings import Fix, Related
from contiglint.layout.sinks.contract_calls import GUARD_WORDS
from contiglint.layout.contracts.records import SUMMARY_TOKENS, Requirement
from contiglint.layout.flow.frame import GRAD_OUTPUT
from contiglint.layout.sinks.records import ContractSink, Sink
from contiglint.layout.model.stride_checks import unit_last
from contiglint.layout.model.values import Kind, Tensor
from contiglint.rules.base import Report, Rule, RuleContext
from contiglint.rules.ctg107_collective_on_noncontiguous import CollectiveOnNonContiguous
from contiglint.rules.messages import called_from, made_by, related
from contiglint.rules.statements import needs_parentheses


class ContractRequiresContiguous(Rule):
    """Flags a non-contiguous tensor passed to a function, kernel, custom op or extension that
    requires a contiguous one.

    **What it flags.** A call that passes a tensor made non-contiguous (by a transpose,
    permute, slice, expand) to a parameter that the callee requires contiguous. The contract is
    *learned* from the callee's code, in the same module or in another module of the linted
    tree (`from .kernels import fused_rmsnorm`): the callee asserts or raises on
    `not p.is_contiguous()` (also `torch._check(p.is_contiguous())`, `p.stride() == ...`; a
    check of `p.stride(-1) == 1` requires unit-stride rows only), reads `p`'s raw memory
    (`data_ptr()`, `untyped_storage()`, ctypes, `torch.frombuffer`,
    `__cuda_array_interface__`), launches a `@triton.jit` kernel with `p` but without its
    strides (or with `p`'s strides addressing a fresh contiguous output as well: `out =
    torch.empty(M, N); kernel[grid](p, out, p.stride(0), p.stride(1))` where the kernel stores
    `out` through those strides), checks it with a check function of the project
    (`from .utils import torch_check; torch_check(p.is_contiguous(), ...)`), saves it with
    `ctx.save_for_backward(p)` for a `backward` that requires it, or passes `p` on to a
    function that requires it: through wrappers, methods, static and class methods,
    `Function.apply` -> `forward`, functions a factory returns, and custom ops
    `torch.ops.ns.op` the project defines with `torch.library`. Contracts are also
    *known* from the catalogue: `safetensors.torch.save_file`/`save` reject non-contiguous
    tensors. Functions of compiled extension modules (built with
    `torch.utils.cpp_extension.load`/`load_inline`, or imported: `from . import _C`,
    `import fused_adam_cuda`) and custom ops defined elsewhere have an *unknown* contract:
    reported in strict mode, or by default when the module's own code passes the extension
    `.contiguous()` tensors elsewhere (a sign that it needs them).

    A finding of a tensor the code shows non-contiguous names a witness: sizes, as the code
    shows them, under which it is not contiguous (`not contiguous for B=2, N=3: (2, 3, 4) with
    strides (12, 1, 3)`); without one it is reported in `--strict` mode only. A gradient that
    autograd hands to `backward` has no witness (its layout depends on how the forward's output
    was used) and is still reported by default where a kernel needs it dense.

    **Why.** Kernels read `numel()` elements from `data_ptr()` as a dense row-major block: a
    transposed or sliced tensor is read in the wrong order, or the guard that protects the
    kernel raises (`AssertionError`, `RuntimeError: ... must be contiguous`) two calls away from
    the line that made the tensor. The bug is at the call, where the layout is known, and that
    is where this rule reports it, with the guard or raw read of the callee and the origin of
    the layout as related locations. A raw read in the callee is also CTG106 at the read, in
    that calling context, unless the callee guards the tensor first (then it raises before).

    **Example.**

        def fused_rmsnorm(x, w):
            assert x.is_contiguous()
            ...

        fused_rmsnorm(hidden.transpose(1, 2), w)  # CTG114

    **Fix.** Pass `.contiguous()`: safe when the callee's contract is a guard (the call raised
    before); unsafe when the callee reads the raw memory, because the values it computes change
    (to the right ones). When the callee writes into the tensor (an in-place kernel, a raw
    write), the fix binds the copy and copies it back after the call, `x_contig =
    x.contiguous(); f(x_contig); x.copy_(x_contig)` (unsafe; only for a call that is its own
    statement).

    **When to ignore.** When the callee's check is deliberately a precondition you meet
    elsewhere, or the kernel does honour the strides it is not passed (then pass them).
    """

    code = "CTG114"
    name = "contract-requires-contiguous"
    summary = "non-contiguous tensor passed where the callee requires a contiguous one"
    sinks = frozenset({"contract"})
    fix_safety = "safe or unsafe"
    # a contract comes from an import (another module, a library, an extension) or from
    # evidence in this file
    tokens = frozenset(SUMMARY_TOKENS)

    def check(self, sink: ContractSink, ctx: RuleContext) -> Iterable[Report]:
        requirement: Requirement = sink.requirement
        tensor = sink.tensor
        if requirement is None or tensor is None or not self.applies(requirement, tensor, ctx):
            return
        proven, witness = ctx.proven(tensor, rows=requirement.kind == "inner",
                                      path=sink.path)
        if not proven and not is_grad_output(tensor) and tensor.kind is not Kind.UNKNOWN:
            return  # shown non-contiguous, but no concrete sizes the code shows make it so
        callee = sink.op.replace("<class>", "")
        param = sink.param
        guard = requirement.evidence[-1]
        where = self.where(guard, ctx)
        needs = "unit-stride rows" if requirement.kind == "inner" else "a contiguous tensor"
        if requirement.kind == "unknown" or guard.line == 0:
            why = guard.what
        else:
            why = f"it {guard.what}{where}"
        grad = is_grad_output(tensor)
        described = made_by(tensor) if tensor.noncontiguous else (
            "that is a gradient from autograd (non-contiguous when the output was transposed, "
            "sliced or expanded)" if grad else "of unknown layout")
        message = (f"`{callee}` needs {needs}" + (f" for `{param}`" if param else "") +
                   f" ({why}), but gets a tensor {described}{called_from(sink)}; pass "
                   f".contiguous()" + (" and copy the result back" if requirement.writes else ""))
        origin = related(sink, replace(tensor, origin=None) if grad else tensor)
        yield Report(sink.target, message, self.fix(sink, ctx, requirement),
                     self.callee_places(requirement, ctx) + origin, witness)

    @staticmethod
    def applies(requirement: Requirement, tensor: Tensor, ctx: RuleContext) -> bool:
        if requirement.kind == "unknown":
            return ctx.strict and ctx.reportable(tensor)
        if is_grad_output(tensor) and requirement.kind == "full":
            return True  # autograd decides its layout; the kernel needs it dense
        if requirement.kind == "inner":
            unit = inner_unit_stride(tensor)
            return unit is False or (unit is None and ctx.strict and
                                     tensor.kind is Kind.UNKNOWN)
        return ctx.reportable(tensor)

    @staticmethod
    def where(evidence, ctx: RuleContext) -> str:
        if not evidence.path or same_file(evidence.path, ctx.path):
            return ""  # the guard or read is a related location
        return f" in {os.path.basename(evidence.path)}:{evidence.line}"

    @staticmethod
    def callee_places(requirement: Requirement, ctx: RuleContext) -> tuple[Related, ...]:
        """The guard or raw read, and the calls of the callee that lead there (this file)."""
        places = []
        for evidence in requirement.evidence:
            if evidence.line and (not evidence.path or same_file(evidence.path, ctx.path)):
                places.append(Related(evidence.line, evidence.column, evidence.what))
        return tuple(places)

    @staticmethod
    def fix(sink: Sink, ctx: RuleContext, requirement: Requirement) -> Optional[Fix]:
        target = sink.target
        if target is None or sink.item:
            return None  # a tensor inside a dict or list argument: fix it where it is stored
        if requirement.writes:
            return CollectiveOnNonContiguous.fix(sink, ctx, True)
        call = sink.node
        if not any(target is a for a in list(call.args) + [k.value for k in call.keywords]):
            return None  # an item of a dict or list argument: no single place to copy
        text = ctx.source.segment(target)
        text = f"({text}).contiguous()" if needs_parentheses(target) else f"{text}.contiguous()"
        # safe where the callee would raise (a guard); where it reads raw memory the values
        # change, as intended, which is not a behaviour-keeping edit
        guard = requirement.evidence[-1].what.startswith(GUARD_WORDS)
        return Fix("safe" if guard else "unsafe", (ctx.source.replace(target, text),),
                   "pass a .contiguous() copy")


def is_grad_output(tensor: Tensor) -> bool:
    return tensor.kind is Kind.UNKNOWN and tensor.origin is not None and \
        tensor.origin.op == GRAD_OUTPUT


def same_file(a: str, b: str) -> bool:
    try:
        return os.path.abspath(a) == os.path.abspath(b)
    except (TypeError, ValueError):
        return False


def inner_unit_stride(tensor: Tensor) -> Optional[bool]:
    """Whether the last dim (ignoring size-1 dims) has stride 1; None when unknown."""
    if tensor.kind is Kind.CONTIGUOUS:
        return True
    if tensor.geometry is None or tensor.maybe:
        return None
    return unit_last(tensor)
