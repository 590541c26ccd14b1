"""Programs over leading dims the code never counts (`*batch, C, D = x.shape`), generated
(tests/generated/lead_programs.py) and written by hand from what the generated ones showed.
Each runs under torch with none, one and two leading dims, through the same oracle as every
generated program (tests/generated/oracle.py): no verdict, finding or witness may disagree."""
from __future__ import annotations

from hypothesis import HealthCheck, Phase, given, settings

from tests.generated.cases import agreed, program
from tests.generated.programs import programs

LEAD_SAMPLE = 400
SIZES2 = ((5, 3, 4, 6), (4, 6), (5, 4, 6), (1, 4, 6), (5, 1, 6))
PROLOGUE2 = ("*batch, C, D = x.shape",)


def lead_program(body: list[tuple[str, ...]], paths: bool = False):
    """`f(x)` (and `p` with `paths`) after `*batch, C, D = x.shape`, run with x of (C, D) = (4, 6)
    after none, one and two leading dims, and with a size-1 dim."""
    sizes = tuple(s + (1,) for s in SIZES2) + tuple(s + (0,) for s in SIZES2) if paths \
        else SIZES2
    return program("lead", PROLOGUE2, body, ("x",), 4, sizes, paths=paths)


@settings(max_examples=LEAD_SAMPLE, derandomize=True, deadline=None, database=None,
          phases=(Phase.explicit, Phase.generate), suppress_health_check=list(HealthCheck))
@given(program=programs(forms=("lead",)))
def test_programs_over_leading_dims_agree_with_torch(program):
    agreed(program)

