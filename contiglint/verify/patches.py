"""Entry points that `TorchFunctionMode` does not see, wrapped for the tracer's lifetime.

A torch function mode observes calls that go through `__torch_function__` dispatch. Module
buffer registration, `nn.Parameter` construction, `torch.jit.trace` and the `torch.distributed`
collectives are plain Python and never reach it; `Tensor.data_ptr` and `untyped_storage` reach
it on recent torch but are listed in `get_ignored_functions()` on some versions, so they are
wrapped only when the mode would miss them. Functions of compiled extension modules outside
the library directories (a project's `_C`, a `cpp_extension.load` build) are wrapped too: a
kernel there is the commonest contiguity boundary. Every replaced attribute is put back on exit,
including removing an attribute that was inherited rather than set on the class. `torch.save`
is wrapped too, so that the fixture verifier sees what a save stores.
"""
from __future__ import annotations

import functools
import os
import sys
from typing import Any, Callable

import torch

# (op label, function, args, kwargs) -> result; the tracer's shared interception path.
Intercept = Callable[[str, Callable[..., Any], tuple, dict], Any]

COLLECTIVES = (
    "all_reduce", "reduce", "broadcast", "all_gather", "all_gather_into_tensor",
    "reduce_scatter", "reduce_scatter_tensor", "scatter", "gather", "all_to_all",
    "all_to_all_single", "_all_gather_base", "_reduce_scatter_base",
    "send", "recv", "isend", "irecv", "batch_isend_irecv",
)


class EntryPatches:
    """Installs the wrappers; `restore()` undoes exactly what `install()` did, in reverse."""

    def __init__(self, intercept: Intercept,
                 is_user_file: Callable[[str], bool] = lambda path: False) -> None:
        self._intercept = intercept
        self._is_user_file = is_user_file
        self._saved: list[tuple[Any, str, bool, Any]] = []

    def install(self) -> None:
        nn = torch.nn
        self._wrap(nn.Module, "register_buffer", "nn.Module.register_buffer")
        self._wrap_parameter_new()
        self._wrap(torch.jit, "trace", "torch.jit.trace")
        self._wrap(torch, "save", "torch.save")  # the verifier checks what a save stores
        for module, name in (("torch.jit", "trace_module"), ("torch.export", "export"),
                             ("torch.onnx", "export")):
            if module in sys.modules:  # never import these heavy modules just to wrap them
                self._wrap(sys.modules[module], name, f"{module}.{name}")
        ignored = torch.overrides.get_ignored_functions()
        for name in ("data_ptr", "untyped_storage"):
            if getattr(torch.Tensor, name) in ignored:
                self._wrap(torch.Tensor, name, f"Tensor.{name}")
        self._wrap_boundaries()
        self._wrap_extensions()
        if torch.distributed.is_available():
            import torch.distributed.distributed_c10d as c10d
            for name in COLLECTIVES:
                wrapped: dict[int, Any] = {}  # one wrapper per function: `P2POp` compares
                for owner in (torch.distributed, c10d):  # `op` with c10d's own `isend`
                    if hasattr(owner, name):
                        original = getattr(owner, name)
                        if id(original) in wrapped:
                            self._replace(owner, name, wrapped[id(original)])
                        else:
                            self._wrap(owner, name, f"torch.distributed.{name}")
                            wrapped[id(original)] = getattr(owner, name)
            if hasattr(c10d, "P2POp"):  # the tensor of a batched isend/irecv, where it is made
                self._wrap(c10d.P2POp, "__init__", "torch.distributed.P2POp")

    def _wrap_boundaries(self) -> None:
        """Library boundaries with a contiguity contract: safetensors saves, Triton launches
        (`JITFunction.run`), when those libraries are installed. The op label of a launch is
        `triton:<kernel name>`."""
        import importlib.util

        if importlib.util.find_spec("safetensors") is not None:
            try:
                import safetensors.torch as st
            except Exception:  # noqa: BLE001 - a broken install must not stop the watch
                st = None
            if st is not None:
                for name in ("save_file", "save"):
                    if hasattr(st, name):
                        self._wrap(st, name, f"safetensors.torch.{name}")
        if importlib.util.find_spec("triton") is not None:
            try:
                from triton.runtime.jit import JITFunction
            except Exception:  # noqa: BLE001
                return
            original = JITFunction.run
            intercept = self._intercept

            @functools.wraps(original)
            def run(kernel, *args, **kwargs):
                name = getattr(getattr(kernel, "fn", None), "__name__", "kernel")
                return intercept(f"triton:{name}", functools.partial(original, kernel), args,
                                 kwargs)

            self._replace(JITFunction, "run", run)

    def _wrap_extensions(self) -> None:
        """Compiled extension modules outside the library directories: those the user's
        project ships (`from . import _C`) and those `torch.utils.cpp_extension.load` /
        `load_inline` build (in the user's build directory or torch's extension cache). Their
        functions are wrapped as entry points labelled `ext:<module>.<function>`: those loaded
        before the watch now, those loaded while it runs as they are executed (both an import
        and cpp_extension's direct load go through `ExtensionFileLoader.exec_module`)."""
        from importlib.machinery import ExtensionFileLoader

        for module in list(sys.modules.values()):
            self._wrap_extension_module(module)
        original = ExtensionFileLoader.exec_module
        patches = self

        @functools.wraps(original)
        def exec_module(loader, module):
            original(loader, module)
            if patches._saved:  # still installed
                patches._wrap_extension_module(module)

        self._replace(ExtensionFileLoader, "exec_module", exec_module)

    def _wrap_extension_module(self, module: Any) -> None:
        import importlib.machinery
        import types

        path = getattr(module, "__file__", None)
        if not isinstance(path, str) or not path.endswith(
                tuple(importlib.machinery.EXTENSION_SUFFIXES)) or \
                not self._is_user_file(os.path.abspath(path)):
            return
        name = getattr(module, "__name__", "extension")
        for attribute, value in list(vars(module).items()):
            if isinstance(value, types.BuiltinFunctionType) and not attribute.startswith("__"):
                self._wrap(module, attribute, f"ext:{name}.{attribute}")

    def restore(self) -> None:
        while self._saved:
            owner, name, had_own, original = self._saved.pop()
            if had_own:
                setattr(owner, name, original)
            else:
                delattr(owner, name)

    def _wrap(self, owner: Any, name: str, label: str) -> None:
        original = getattr(owner, name)
        intercept = self._intercept

        @functools.wraps(original)
        def wrapper(*args, **kwargs):
            return intercept(label, original, args, kwargs)

        self._replace(owner, name, wrapper)

    def _wrap_parameter_new(self) -> None:
        parameter = torch.nn.Parameter
        original = parameter.__dict__["__new__"]
        construct = original.__func__ if isinstance(original, staticmethod) else original
        intercept = self._intercept

        def new(cls, *args, **kwargs):
            # The class itself is not an argument worth recording; rebind it inside the call.
            def build(data=None, requires_grad=True):
                return construct(cls, data, requires_grad)

            return intercept("nn.Parameter", build, args, kwargs)

        self._replace(parameter, "__new__", staticmethod(new))

    def _replace(self, owner: Any, name: str, value: Any) -> None:
        had_own = name in getattr(owner, "__dict__", {})
        original = owner.__dict__[name] if had_own and isinstance(owner, type) \
            else getattr(owner, name)
        self._saved.append((owner, name, had_own, original))
        setattr(owner, name, value)
