"""A size-1 dim expanded to sizes the code names (`mask.unsqueeze(-1).expand(-1, G, E // G)`)
has those sizes, as a tensor `new_zeros` makes of named sizes does, and a view that merges the
expanded dim with a real one is witnessed where the target is written in the tensor's own
sizes. A size the code does not show, only reads (`scores.size(0)`), may be fixed where the
code cannot see: the witness must hold whatever it is. Each claim runs under torch."""
from __future__ import annotations

import textwrap

import pytest
import torch

from tests.generated.cases import executed, view_findings, view_findings_by_function

SOURCE = textwrap.dedent("""
    import torch


    def group_mask(scores, G: int, E: int):
        best = scores.view(-1, G, E // G).topk(2, dim=-1)[0].sum(dim=-1)
        mask = torch.zeros_like(best)
        return mask.unsqueeze(-1).expand(-1, G, E // G).view(-1, E)


    def group_mask_by_max(scores, G: int, E: int):
        best = scores.view(-1, G, E // G).max(dim=-1).values
        mask = torch.zeros_like(best)
        return mask.unsqueeze(-1).expand(-1, G, E // G).view(-1, E)


    def rows_repeated(scores, G: int, E: int):
        best = scores.view(-1, G, E // G).amax(dim=-1)
        mask = torch.zeros_like(best)
        return mask.unsqueeze(1).expand(-1, E // G, G).view(-1, E)


    def pairs_repeated(scores, G: int, E: int):
        best = scores.view(-1, G, E // G).amax(dim=-1)
        mask = torch.zeros_like(best)
        return mask[..., None, None].expand(-1, -1, E // G, 2).view(-1, G, E // G * 2)


    def copied(scores, G: int, E: int):
        best = scores.view(-1, G, E // G).amax(dim=-1)
        mask = torch.zeros_like(best)
        return mask.unsqueeze(-1).expand(-1, G, E // G).reshape(-1, E)
""")


@pytest.mark.parametrize("function", ["group_mask", "group_mask_by_max", "rows_repeated"])
def test_an_expanded_group_mask_viewed_is_witnessed(function):
    found = view_findings_by_function(SOURCE)
    witness = found[function].witness
    values = dict(witness.values)
    G, E = values["G"], values["E"]
    scores = torch.randn(3, E)
    with pytest.raises(RuntimeError, match="view size is not compatible"):
        executed(SOURCE)[function](scores, G, E)


def test_views_that_merge_only_broadcast_dims_or_copy_are_not_flagged():
    found = view_findings_by_function(SOURCE)
    assert "pairs_repeated" not in found and "copied" not in found
    namespace = executed(SOURCE)
    for G, E in ((2, 4), (1, 4), (4, 4), (3, 6)):
        scores = torch.randn(3, E)
        # (rows, G, E // G, 2) with strides (G, 1, 0, 0): the two broadcast dims merge
        assert namespace["pairs_repeated"](scores, G, E).shape == (3, G, E // G * 2)
        assert namespace["copied"](scores, G, E).shape == (3, E)


GRID = textwrap.dedent("""
    import torch


    class Grid:
        def __init__(self, rows, cols):
            self.rows, self.cols = rows, cols

        def cells(self, x):
            m = x.new_zeros(self.rows, self.cols).t()
            return m.view(self.rows * self.cols)

        def cells_ok(self, x):
            m = x.new_ones(self.rows, self.cols)
            return m.view(self.rows * self.cols)
""")


def test_new_zeros_sized_by_names_has_those_sizes():
    """`x.new_zeros(self.rows, self.cols)` is (rows, cols): the witness of the transposed view
    names those two sizes only (it gave the tensor's own `m.size(i)` values apart from them, a
    (2, 10) tensor viewed as 20 elements where rows * cols was 5 * 4)."""
    (found,) = view_findings(GRID)
    values = dict(found.witness.values)
    assert set(values) == {"self.rows", "self.cols"}
    grid = executed(GRID)["Grid"](values["self.rows"], values["self.cols"])
    with pytest.raises(RuntimeError, match="view size is not compatible"):
        grid.cells(torch.randn(2))
    for rows, cols in ((2, 3), (1, 4), (3, 1)):
        assert executed(GRID)["Grid"](rows, cols).cells_ok(torch.randn(2)).shape == (rows * cols,)
