"""What the tracer asks of torch itself: its function-mode stack, the file a tensor subclass
is defined in, and an op's public name (remembered: resolving one costs ~35 us)."""
from __future__ import annotations

import functools
import inspect
import os
from typing import Any, Optional

import torch
from torch.overrides import resolve_name


def stack_depth() -> int:
    return torch._C._len_torch_function_stack()


def stack_top(depth: int) -> Any:
    return torch._C._get_function_stack_at(depth - 1)


def pop_stack() -> None:
    torch._C._pop_torch_function_stack()


def push_stack(mode: Any) -> None:
    torch._C._push_on_torch_function_stack(mode)


@functools.lru_cache(maxsize=4096)
def defining_file(cls: type) -> Optional[str]:
    try:
        return os.path.abspath(inspect.getsourcefile(cls) or "") or None
    except (TypeError, OSError):
        return None


OP_NAMES: dict[Any, str] = {}  # shared by all tracers: resolve_name costs ~35 us a call


def remember_op_name(func: Any) -> str:
    if len(OP_NAMES) > 50_000:  # method-wrappers of getters are new objects per access
        OP_NAMES.clear()
    name = OP_NAMES[func] = op_name(func)
    return name


def op_name(func: Any) -> str:
    """`Tensor.view`, `torch.cat`, `torch.nn.functional.linear`, `Tensor.T` (getters),
    `torch.ops.ns.op` (custom and aten ops called through `torch.ops`)."""
    if isinstance(func, (torch._ops.OpOverloadPacket, torch._ops.OpOverload)):
        return f"torch.ops.{func}"
    try:
        name = resolve_name(func)
    except Exception:  # noqa: BLE001
        name = None
    if not name:
        module = getattr(func, "__module__", None) or "torch"
        name = f"{module}.{getattr(func, '__qualname__', getattr(func, '__name__', repr(func)))}"
    if name.startswith("torch.Tensor."):
        name = name[len("torch."):]
    if name.endswith(".__get__"):
        name = name[: -len(".__get__")]
    return name
