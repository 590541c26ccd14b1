"""A tensor with another name's sizes (`v = x.bfloat16()`, `v = x if p else x.contiguous()`,
`v = x + 1`) has its sizes named after that name (flow/size_aliases.py): `x.size(2)` and
`v.size(2)` are one size, and a witness that gave them two values named sizes no input gives
(generated opaque seeds 120 and 124: every wrong witness of seed 120 was of this kind). Each
program runs under torch through the generated programs' oracle, which checks that some input
gives the sizes a witness names."""
from __future__ import annotations

import pytest

from tests.generated.cases import agreed, program

SIZES = {2: ((4, 5), (4, 1), (1, 5)), 3: ((4, 5, 6), (4, 5, 1), (2, 2, 4)),
         4: ((4, 5, 6, 7), (1, 5, 6, 7), (2, 1, 1, 2))}


@pytest.mark.parametrize("body, rank, paths", [
    ([("v0 = x if p else x.contiguous()", "op", ""), ("v2 = v0.permute(3, 0, 1, 2)", "op", ""),
      ("s3 = v2.view(-1, x.size(2))", "view", "v2")], 4, True),
    ([("v1 = x.bfloat16()", "op", ""), ("v2 = torch.einsum('abc->bac', v1)", "op", ""),
      ("s4 = v2.view(x.size(1), x.size(0) * x.size(2))", "view", "v2")], 3, False),
    ([("v0 = x + 1", "op", ""), ("v1 = v0.permute(0, 1)", "op", ""),
      ("v3 = v1.unsqueeze(1).expand(-1, 3, -1)", "op", ""),
      ("s6 = v3.view(x.size(0), 3 * x.size(1))", "view", "v3")], 2, False),
    ([("v0 = F.relu(x).clamp(0.0, 1.0)", "op", ""), ("v1 = v0.transpose(0, 1)", "op", ""),
      ("s2 = v1.view(x.size(0) * x.size(1))", "view", "v1")], 2, False),
], ids=["branches", "dtype-and-einsum", "number", "activation-and-pointwise"])
def test_a_witness_names_the_sizes_of_a_tensor_with_anothers_sizes_after_the_other(
        body, rank, paths):
    verdicts = agreed(program("opaque", (), body, ("x",), rank, SIZES[rank], paths=paths))
    [verdict] = [v for v in verdicts if v.finding]
    assert verdict.witness and all(name.startswith("x.") for name in verdict.witness)

