"""Known contiguity contracts at library and extension boundaries, and the evidence that makes
a function's own contract.

* `KNOWN`: library functions that require contiguous tensors (what happens otherwise).
* `EXTENSION_LOADERS`, `EXTENSION_SUFFIXES`: how an extension module is recognised: the
  result of `torch.utils.cpp_extension.load`/`load_inline`, or an imported module named like a
  compiled extension (`_C`, `foo_cuda`, `foo_cpp`, `foo_ext`). Its functions have an *unknown*
  contract: most native kernels read `data_ptr()` as a dense row-major block.
* `LIBRARY_DEFINERS`: the `torch.library` calls that define custom ops (`torch.ops.ns.op`), so
  that the contract of an op is learned from its Python implementation.
* `RAW_READERS`, `RAW_ATTRIBUTES`, `GUARD_CHECKS`: what counts as evidence in a function body
  (layout/contracts/): raw reads of a tensor's memory, and checks that reject a layout;
  `CONTIGUOUS_ALLOCATORS`: factories whose result is contiguous (a kernel output addressed
  with an input's strides needs that input contiguous).

The static pass (CTG114) and the runtime watcher both read these tables.
"""
from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Known:
    """A library function that requires contiguous tensors in one argument."""

    position: int
    keyword: str
    effect: str
    items: bool = False  # the argument is a dict/list whose tensors are checked
    writes: bool = False


SAFETENSORS_RAISES = ("raises 'ValueError: You are trying to save a non contiguous tensor' "
                      "(safetensors)")
KNOWN: dict[str, Known] = {
    "safetensors.torch.save_file": Known(0, "tensors", SAFETENSORS_RAISES, items=True),
    "safetensors.torch.save": Known(0, "tensors", SAFETENSORS_RAISES, items=True),
}
# `save_model(model, f)` copies with `.contiguous()` unless `force_contiguous=False`: not a
# hazard by default, so it is not listed.

EXTENSION_LOADERS = frozenset({"torch.utils.cpp_extension.load",
                               "torch.utils.cpp_extension.load_inline"})
EXTENSION_SUFFIXES = ("_C", "_cuda", "_cpp", "_ext", "_cuda_ext", "_native")
EXTENSION_EFFECT = ("has an unknown contract: a compiled extension usually reads data_ptr() as "
                    "a dense row-major block")

LIBRARY_DEFINERS = frozenset({"torch.library.custom_op", "torch.library.impl",
                              "torch.library.register_kernel", "torch.library.define",
                              "torch.library.register_fake", "torch.library.impl_abstract"})

# Decorators whose wrapper calls the function with the very arguments it was given (torch's
# own, read in torch/autograd/function.py and torch/amp/autocast_mode.py), so a custom autograd
# `backward` under them still receives autograd's gradients as autograd made them. Any other
# decorator may hand the body other tensors: liger-kernel's `@ensure_contiguous` and fla's
# `@input_guard` pass every tensor argument through `.contiguous()` first.
ARGUMENT_KEEPING_DECORATORS = frozenset({
    "staticmethod", "classmethod", "torch.autograd.function.once_differentiable",
    "torch.amp.custom_bwd", "torch.cuda.amp.custom_bwd", "torch.amp.autocast_mode.custom_bwd",
    "torch.no_grad", "torch.enable_grad", "torch.inference_mode",
    "torch.autograd.grad_mode.no_grad", "torch.autograd.grad_mode.enable_grad"})

# The static methods of a torch.autograd.Function that autograd calls with its context object
# first (`Function.apply(x)` runs `forward(ctx, x)`); `forward` too unless a `setup_context`
# takes the context instead (`forward(x)`): see `forward_takes_context`.
AUTOGRAD_CONTEXT_METHODS = ("backward", "vjp", "jvp", "setup_context")


def forward_takes_context(methods) -> bool:
    """Does autograd call the Function's `forward` with its context first? `methods`: the
    names of the class's methods."""
    return "setup_context" not in methods

# calls whose tensor-derived argument is read as raw memory
RAW_READERS = frozenset({"torch.frombuffer", "numpy.frombuffer", "numpy.ctypeslib.as_array",
                         "ctypes.memmove", "ctypes.cast", "ctypes.c_void_p", "ctypes.memset",
                         "ctypes.string_at"})
RAW_METHODS = frozenset({"data_ptr", "untyped_storage", "storage", "_storage"})
RAW_ATTRIBUTES = frozenset({"__cuda_array_interface__", "ctypes"})
# uses of a pointer or a storage that never read its elements: identity, alignment, size
IDENTITY_ATTRIBUTES = frozenset({"data_ptr", "nbytes", "size", "resize_", "element_size",
                                 "device", "_cdata", "is_shared", "share_memory_", "filename",
                                 "is_pinned", "pin_memory", "_free_weak_ref", "_weak_ref"})
# factories whose result is always contiguous (a shape in, a dense row-major tensor out); the
# `*_like` factories keep their input's strides and are not listed
CONTIGUOUS_ALLOCATORS = frozenset({"torch.empty", "torch.zeros", "torch.ones", "torch.full",
                                   "torch.rand", "torch.randn", "torch.randint", "torch.arange"})
# Tensor methods that reject a layout when their result is asserted or raised on
GUARD_CHECKS = frozenset({"is_contiguous"})
CHECK_FUNCTIONS = frozenset({"torch._check", "torch._check_value", "torch._check_with"})


def is_extension_name(module: str) -> bool:
    """A module named like a compiled extension (`pkg._C`, `fused_adam_cuda`)."""
    last = module.rsplit(".", 1)[-1]
    return last.endswith(EXTENSION_SUFFIXES) and last not in ("torch", "_C") or last == "_C" \
        and not module.startswith("torch")
