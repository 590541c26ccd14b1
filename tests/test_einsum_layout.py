"""The two-operand einsum layout model (`join_transfers.contraction_order`) against torch.

torch lays a contraction out as its bmm produces it; which letters end up innermost depends on
which output letters have size 1, so the model either names one memory order that holds for
every size the letters may take, or says the layout depends on sizes (None). Both are checked
here on random equations, by running torch.einsum on every assignment of sizes 1 and 3 to the
output letters whose size is unknown.
"""
from __future__ import annotations

import itertools
import random

import torch

from contiglint.layout.model.join_transfers import contraction_order
from contiglint.layout.model.sizes import literal


def equations(count: int, seed: int = 12):
    rng = random.Random(seed)
    made = 0
    while made < count:
        letters = rng.sample("abcdefg", rng.randint(2, 6))
        lhs = "".join(rng.sample(letters, rng.randint(1, len(letters))))
        rhs = "".join(rng.sample(letters, rng.randint(1, len(letters))))
        kept = [c for c in sorted(set(lhs) | set(rhs)) if rng.random() < 0.6]
        if not kept or not any(c in rhs and c not in kept for c in lhs) or len(kept) > 5:
            continue
        made += 1
        yield lhs, rhs, "".join(rng.sample(kept, len(kept)))


def memory_order(lhs: str, rhs: str, output: str, size: dict) -> list[str]:
    a = torch.randn(*[size[c] for c in lhs])
    b = torch.randn(*[size[c] for c in rhs])
    result = torch.einsum(f"{lhs},{rhs}->{output}", a, b)
    live = [i for i in range(result.dim()) if result.shape[i] != 1]
    return [output[i] for i in sorted(live, key=lambda i: -result.stride(i))]


def test_literal_sizes_give_torchs_memory_order():
    rng = random.Random(3)
    for lhs, rhs, output in equations(300):
        size = {c: rng.choice([1, 2, 3]) for c in lhs + rhs}
        size.update({c: 2 for c in lhs if c in rhs and c not in output})  # contracted: > 1
        order = contraction_order(lhs, rhs, output, {c: literal(n) for c, n in size.items()})
        assert order is not None
        assert [c for c in order if size[c] != 1] == memory_order(lhs, rhs, output, size), \
            (lhs, rhs, output, size)


def test_unknown_sizes_give_an_order_that_holds_for_every_size_or_none():
    decided = undecided = 0
    for lhs, rhs, output in equations(200):
        order = contraction_order(lhs, rhs, output, {})
        outcomes = set()
        for sizes in itertools.product((1, 3), repeat=len(output)):
            size = dict(zip(output, sizes))
            size.update({c: 2 for c in lhs + rhs if c not in output})
            real = memory_order(lhs, rhs, output, size)
            outcomes.add(tuple(real))
            if order is not None:
                assert [c for c in order if size[c] != 1] == real, (lhs, rhs, output, size)
        decided += order is not None
        undecided += order is None
    assert decided > 100 and undecided  # both answers are exercised


def test_a_size_one_letter_that_flips_the_layout_is_undecided():
    # transformers' UnivNet location-variable convolution: `d` is the dilation, 1 by default
    spec = ("bildsk", "biokl", "bolsd")
    assert contraction_order(*spec, {}) is None
    three = {c: literal(3) for c in "bildsko"}
    assert contraction_order(*spec, three) == list("blosd")
    assert contraction_order(*spec, {**three, "d": literal(1)}) == list("blsod")
