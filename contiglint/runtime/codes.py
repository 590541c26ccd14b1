"""The hazard codes the runtime watcher reports, and what each one means.

Codes below 200 are the static rules' codes: the watcher reports the same hazard, observed
rather than inferred, so `# noqa: CTG101` silences both. CTG2xx exist only at runtime, because
they need facts the source does not show (whether a copy really happened, how many bytes it
moved, what a module really returned).
"""
from __future__ import annotations

TITLES = {
    "CTG101": "view on a non-contiguous tensor raised",
    "CTG103": "non-contiguous tensor registered as a buffer or Parameter",
    "CTG104": "device move carries non-contiguous strides",
    "CTG106": "raw memory access (data_ptr/untyped_storage) on a non-contiguous tensor",
    "CTG107": "collective or p2p call on a non-contiguous tensor",
    "CTG108": "in-place write into an expanded or overlapping tensor",
    "CTG111": "in-place write into a temporary copy (the original is not updated)",
    "CTG112": "torch.save of a view writes its whole base storage",
    "CTG114": "non-contiguous tensor passed where a contract requires a contiguous one",
    "CTG201": "copy of a non-contiguous tensor",
    "CTG202": "module output is non-contiguous",
}

EXPLANATIONS = {
    "CTG101": "`.view()` needs strides compatible with the new shape; on a transposed, "
              "sliced or expanded tensor it raises. Use `.reshape()`, or `.contiguous()` "
              "where the tensor was made non-contiguous (shown as 'made non-contiguous at').",
    "CTG103": "Buffers and Parameters keep their strides: state_dict, parameters_to_vector, "
              "optimizers with flat buffers and raw kernels then see the odd layout. "
              "Register `t.contiguous()`.",
    "CTG104": "`.to(device)`/`.cuda()` preserve the strides of a dense non-contiguous tensor, "
              "so the copy on the new device is just as non-contiguous. Call "
              "`.contiguous()` first, or pass `memory_format=torch.contiguous_format`.",
    "CTG106": "A raw pointer or storage exposes memory order, not logical order: a kernel "
              "reading numel elements from data_ptr() reads the wrong elements (or out of "
              "bounds for expanded tensors). Pass `t.contiguous()` and keep it alive.",
    "CTG107": "gloo reduces/broadcasts `numel` elements from data_ptr: on a non-contiguous "
              "tensor results are silently wrong or neighbouring memory is corrupted; "
              "send/recv and NCCL raise. Use `y = x.contiguous(); op(y); x.copy_(y)`.",
    "CTG108": "Several elements of an expanded/overlapping tensor share memory: in-place "
              "arithmetic raises, fill_/setitem writes through to the base, unfold-style "
              "overlap gives wrong results. Clone first.",
    "CTG111": "The in-place op wrote into a copy made by reshape/contiguous/flatten because "
              "the input was non-contiguous; the original tensor is unchanged.",
    "CTG112": "torch.save serializes storages, not views: saving a slice of a large tensor "
              "writes the entire storage it lives in (and loads it back whole). Save "
              "`t.clone()` to store only its elements.",
    "CTG114": "A kernel wrapper's guard (`assert x.is_contiguous()`, a stride check), a custom "
              "op, a Triton launch without strides or a library such as safetensors got a "
              "non-contiguous tensor. The caller named under 'called from' passed it: pass "
              "`.contiguous()` there.",
    "CTG201": "reshape/flatten/ravel (and, with --explicit-copies, contiguous) copied because "
              "the input was non-contiguous. A `.reshape()` that copies where `.view()` would "
              "raise is what the CTG101 fix intends: the copy is correct, and this warning "
              "says what it costs. Each copy costs about as much as a clone; to avoid it, make "
              "the layout contiguous where it was broken (shown as 'made non-contiguous at'), "
              "or accept it and add `# noqa: CTG201`.",
    "CTG202": "A module returned a non-contiguous (and not channels_last) tensor made from "
              "contiguous inputs; every consumer that needs contiguity will copy or raise. "
              "Return `.contiguous()` if callers need it, or document it.",
}


RUNTIME_ONLY = ("CTG201", "CTG202")  # codes no static rule reports
NAMES = {"CTG201": "implicit-copy", "CTG202": "noncontiguous-module-output"}
SEVERITY = {"CTG201": "warning", "CTG202": "warning"}  # the static codes: their rule's


def title(code: str) -> str:
    return TITLES.get(code, code)
