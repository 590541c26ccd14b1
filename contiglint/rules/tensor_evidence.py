"""Evidence that a sliced value is a tensor, not a list or a string.

The flow pass treats an unknown object as a tensor of unknown layout, so `names[::2]` or
`items[0]` of an unknown object becomes a "strided view". Rules about views that are kept or
saved (where no later tensor op confirms what the value is) count a view only with evidence.
"""
from __future__ import annotations

from typing import Optional

from contiglint.catalogue import ops as catalogue
from contiglint.layout.model.values import Origin, Tensor

# ops that exist only on tensors (`str.split` exists, so a method `.split` needs `dim=`)
TENSOR_ONLY = tuple(f".{name}(" for name in catalogue.TENSOR_ONLY_METHODS) + ("torch.",)


def surely_tensor(tensor: Tensor, cut: Optional[Origin]) -> bool:
    """Whether the view made by `cut` is a tensor for sure: its rank is known, its index had
    several items (`x[:, :k]`, `x[..., 1:]`, which lists reject), or a tensor-only op made it."""
    if cut is None:
        return False
    if tensor.geometry is not None or tensor.min_rank >= 2:
        return True
    op = cut.op
    return any(marker in op for marker in TENSOR_ONLY) or (op.startswith("[") and "," in op) \
        or "..." in op or (".split(" in op and "dim" in op)
