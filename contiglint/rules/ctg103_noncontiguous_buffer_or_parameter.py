"""CTG103: module state (parameters and buffers) created from a non-contiguous tensor."""
from __future__ import annotations

import ast
from typing import Iterable, Optional

from contiglint.catalogue import ops as catalogue
from contiglint.findings import Fix
from contiglint.layout.sinks.records import Sink
from contiglint.layout.model.values import Kind
from contiglint.rules.base import Report, Rule, RuleContext
from contiglint.rules.messages import called_from, made_by, related
from contiglint.rules.statements import needs_parentheses

# view ops whose result shares the storage of their input: the input may be referenced elsewhere
# (or may: reshape and flatten return views where the layout allows)
VIEW_METHODS = catalogue.VIEW_METHODS | catalogue.VIEW_ATTRIBUTES | catalogue.SHAPE_CHANGING


class NonContiguousBufferOrParameter(Rule):
    """Flags `nn.Parameter(t)`, `nn.Buffer(t)` and `register_buffer(name, t)` with a
    non-contiguous `t`.

    **What it flags.** Module state created from a transposed, permuted, sliced or expanded
    tensor: `nn.Parameter(weight.t())`, a LoRA merge `nn.Parameter((B @ A).t())`,
    `register_buffer("proj", basis[:, :k])`, `nn.Buffer(table.expand(n, -1))`.

    **Why.** `nn.Parameter(t)` and `register_buffer(name, t)` keep `t` itself, strides
    included, and every consumer of module state inherits them: `state_dict()` saves the odd
    strides (and, for a slice, the whole base storage), optimizers allocate their state with
    `zeros_like` in the same layout, `torch.nn.utils.parameters_to_vector` raises

        RuntimeError: view size is not compatible with input tensor's size and stride ...

    and so does any code that flattens parameters with `.view(-1)` (gradient bucketing,
    EMA helpers), while kernels that take raw pointers see the wrong order. An expanded tensor
    is worse: its elements share memory, so an in-place optimizer step writes one element
    through many aliases.

    **Example.**

        class LoRALinear(nn.Module):
            def __init__(self, in_features, out_features, rank):
                super().__init__()
                self.lora_A = nn.Parameter(torch.randn(rank, in_features))
                self.lora_B = nn.Parameter(torch.zeros(out_features, rank))
                self.merged = nn.Parameter((self.lora_B @ self.lora_A).t())   # CTG103

    **Fix.** `t.contiguous()`. `nn.Parameter(t)` shares storage with `t`, and `.contiguous()`
    copies, so the fix is *safe* only when `t` is a view of a fresh temporary that nothing else
    references (`(B @ A).t()`, `torch.randn(o, i).t()`): then the copy changes the layout and
    nothing else. When `t` views a tensor that lives on (`other.weight.t()`, a name), the
    parameter and that tensor stop sharing memory, which unties deliberately tied weights;
    that fix is unsafe.

    channels_last state is not flagged: that layout is chosen on purpose for conv kernels.

    **Witness.** A default-mode finding names sizes the code allows under which the state is
    not contiguous (`not contiguous for in_features=2, out_features=3: (2, 3) with strides (1,
    2)`) or, for an expanded tensor, under which two of its elements are one memory location
    (where an optimizer's in-place step and `load_state_dict` raise). State whose layout needs
    sizes the code does not show (`nn.Parameter(w.expand(n, -1))` of a `w` of unknown sizes
    may expand nothing) is reported in strict mode only.

    **When to ignore.** Tied weights that must share storage through a transposed view, where
    no code flattens or raw-reads the state. Suppress with `# noqa: CTG103`.
    """

    code = "CTG103"
    name = "noncontiguous-buffer-or-parameter"
    summary = "Parameter or buffer made from a non-contiguous tensor: state keeps odd strides"
    sinks = frozenset({"buffer", "parameter"})
    fix_safety = "safe or unsafe"

    def check(self, sink: Sink, ctx: RuleContext) -> Iterable[Report]:
        tensor = sink.tensor
        if tensor is None or sink.target is None:
            return
        if tensor.channels_last:
            return  # a deliberate layout (conv weights for channels_last kernels)
        proven, witness = ctx.overlapping(tensor, sink.path) \
            if tensor.kind is Kind.BROADCAST else ctx.proven(tensor, path=sink.path)
        if not proven:
            return
        what = "a buffer" if sink.kind == "buffer" or sink.op.endswith("Buffer") else \
            "a Parameter"
        consequence = ("its elements share memory, so in-place updates write through aliases"
                       if tensor.kind is Kind.BROADCAST else
                       "state_dict, optimizers and parameters_to_vector inherit the strides "
                       "(the last raises)")
        message = (f"{what} made from a tensor {made_by(tensor)}{called_from(sink)} keeps its "
                   f"strides: {consequence}; pass .contiguous()")
        yield Report(sink.target, message, self.fix(sink.target, ctx), related(sink, tensor),
                     witness=witness)

    def fix(self, target: ast.expr, ctx: RuleContext) -> Optional[Fix]:
        text = ctx.source.segment(target)
        if needs_parentheses(target):
            edits = (ctx.source.replace(target, f"({text}).contiguous()"),)
        else:
            edits = (ctx.source.insert_after(target, ".contiguous()"),)
        safety = "safe" if views_fresh_temporary(target) else "unsafe"
        return Fix(safety, edits, "make the tensor contiguous before it becomes module state")


def views_fresh_temporary(expression: ast.expr) -> bool:
    """Whether `expression` is a chain of view ops rooted at a tensor that the expression
    itself creates (a matmul, arithmetic, a torch factory): the copy then breaks no sharing."""
    node = expression
    while True:
        if isinstance(node, ast.Attribute) and node.attr in VIEW_METHODS:
            node = node.value
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and \
                node.func.attr in VIEW_METHODS and not is_torch_function(node.func):
            node = node.func.value
        elif isinstance(node, ast.Subscript):
            node = node.value
        else:
            break
    if isinstance(node, ast.BinOp):
        return True
    return isinstance(node, ast.Call) and is_torch_function(node.func) and \
        node.func.attr not in VIEW_METHODS


def is_torch_function(func: ast.expr) -> bool:
    """`torch.randn`, `torch.matmul`: a function of the torch module (not a Tensor method)."""
    return isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) and \
        func.value.id in ("torch", "th")
