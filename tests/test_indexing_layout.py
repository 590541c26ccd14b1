"""Basic indexing of a contiguous tensor whose rank the code does not show, against torch.

The model knows only the position of each subscript item (from the front before an ellipsis),
so its verdict must hold at every rank the subscript allows: non-contiguous when some rank gives
a non-contiguous result, contiguous only when every rank gives a contiguous one."""
from __future__ import annotations

import pytest
import torch

from contiglint.layout.model.indexing import Index, index
from contiglint.layout.model.values import CONTIGUOUS, Kind, Origin

L = 3  # a cut: every dim has 5 elements


def item(text: str) -> Index:
    if text == "0":
        return Index("int")
    if text == "None":
        return Index("none")
    if text == "...":
        return Index("ellipsis")
    lower, upper, *step = (part or None for part in text.split(":"))
    step = int(step[0]) if step and step[0] else None
    return Index("slice", int(lower) if lower else None, L if upper == "L" else None, step,
                 bounded=lower is not None or upper is not None)


SUBSCRIPTS = ["0, :L", "0, 1:L", "0, 0", "0, 0, :L", "None, 0, :L", "0, None, :L", ":L",
              ":L, 0", ":, :L", "0, :, :L", ":, 0", "0, ::2", "::2", "0, ..., :L", "..., :L",
              "0, :L, :", "0, :L, :L", ":L, :L", "0, :L, 0"]


@pytest.mark.parametrize("subscript", SUBSCRIPTS)
def test_indexing_a_contiguous_tensor_of_unknown_rank(subscript):
    items = [item(part.strip()) for part in subscript.split(",")]
    consumed = sum(1 for i in items if i.kind in ("slice", "int"))
    results = {}
    for rank in range(max(consumed, 1), 5):
        x = torch.arange(5 ** rank).reshape((5,) * rank)
        results[rank] = eval(f"x[{subscript.replace('L', str(L))}]").is_contiguous()
    model = index(CONTIGUOUS, items, Origin("x[...]", 1, 0))
    assert model.noncontiguous == (not all(results.values())), (subscript, results, model)


GATHER_OF_EXPANDED = """import torch


def f(B, N):
    x = torch.randn(B, N)
    wide = x[[0, 0]].unsqueeze(0).expand(3, 2, N)
    picked = wide[[0, 0]]
    return picked.permute(0, 2, 1).view(-1)
"""


def test_a_gather_keeps_the_shape_of_a_tensor_whose_layout_it_does_not_model():
    """Advanced indexing of an expanded tensor makes a tensor of a known shape: the view of
    its permute is witnessed by the sizes the function takes, and raises there."""
    from contiglint.engine import lint_source

    [finding] = lint_source(GATHER_OF_EXPANDED, "gather.py").findings
    values = dict(finding.witness.values)
    assert finding.code == "CTG101" and set(values) <= {"B", "N"}, finding.witness
    namespace = {}
    exec(compile(GATHER_OF_EXPANDED, "gather.py", "exec"), namespace)
    with pytest.raises(RuntimeError, match="view size is not compatible"):
        namespace["f"](values.get("B", 3), values.get("N", 3))


MASKED = """import torch


def f(B):
    x = torch.randn(B)
    picked = x[x > 1]
    return picked.unsqueeze(1).expand(-1, 3).data_ptr()
"""


def test_a_boolean_mask_selects_as_many_elements_as_are_true_not_its_length():
    """`x[x > 1]` has as many elements as the mask has true ones (data, not sizes): its length
    is not the mask's B, which a witness would otherwise give it."""
    import ast

    from contiglint.layout.flow.program import analyze_module
    from contiglint.source import SourceMap

    [sink] = [s for s in analyze_module(ast.parse(MASKED), SourceMap(MASKED))
              if s.kind == "raw_memory"]
    assert sink.tensor.kind is Kind.BROADCAST, sink.tensor
    assert sink.tensor.geometry.axes[0].size != (1, ("B",)), sink.tensor
    x = torch.arange(4.0)
    assert x[x > 1].shape[0] == 2 != x.shape[0]
