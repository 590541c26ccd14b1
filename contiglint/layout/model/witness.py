"""Witnesses: concrete sizes under which torch fails, found from an abstract layout.

A default-mode finding is a proof, not a guess: it carries one concrete tensor, consistent with
the sizes the code spells, on which torch's own rule (concrete.py) fails. The witness is found
by giving the names the sizes are made of (`B`, `C // H`'s `C` and `H`, `x.size(0)`) small
values, building the tensor the abstract geometry describes at those values, and asking
torch's rule. Where no assignment fails, or the geometry cannot be built (the rank is only
assumed, a layout is guessed), there is no witness and the finding is strict-mode only.

A geometry stands for many concrete tensors: a cut dim is shorter than its base by some amount,
a stepped one skips some elements, a dim dropped by indexing had some size. The witness takes
the smallest such choice (one more element, a step of 2, a dropped size of 2), except where
the sizes name it (`(C + 1) // 2` steps by 2 through C; a cut or an index leaves the size of
its base axis in `Geometry.extents`); torch's rules ask only whether strides match, which any
such choice decides the same way. The tensor built is witness_tensors.py's; the names and the
assignments tried are witness_sizes.py's.
"""
from __future__ import annotations

import itertools
from dataclasses import dataclass, replace
from math import prod
from typing import Callable, Optional, Sequence

from contiglint.layout.model.concrete import (OVERLAP_ERROR, STRIDE_ERROR, VIEW_ERROR,
                                              dtype_view_error, has_internal_overlap,
                                              is_contiguous, shares_elements, view_strides)
from contiglint.layout.model.geometry import Geometry
from contiglint.layout.model.path_conditions import NO_CONDITIONS, PathConditions
from contiglint.layout.model.witness_tensors import tensor_at
from contiglint.layout.model.sizes import (WILDCARD, Size, is_made, multiply, own_size_names, shown,
                                           substitute)
from contiglint.layout.model.witness_sizes import (DOMAIN, Names, factors, is_atom,
                                                   search, size_value, solve)


@dataclass(frozen=True)
class Witness:
    """One concrete tensor on which the op fails: the values given to the names the code's
    sizes are made of, the tensor's sizes and strides, and what was done to it."""

    # "view", "view_dtype", "contiguous" (not contiguous), "rows" (last stride not 1),
    # "overlap" (elements that share memory), "windows" (the same, where torch detects none)
    op: str
    values: tuple[tuple[str, int], ...]
    sizes: tuple[int, ...]
    strides: tuple[int, ...]
    target: tuple[int, ...] = ()  # .view's concrete shape
    itemsizes: tuple[int, int] = (0, 0)  # .view(dtype): element sizes from, to
    error: str = ""
    any_size: tuple[str, ...] = ()  # names (sizes an op made) at which any size from 2 fails

    def describe(self) -> str:
        values = ", ".join(f"{name}={value}" + (" (or any size from 2)" if name in self.any_size
                                                else "") for name, value in self.values)
        layout = f"{self.sizes} with strides {self.strides}".replace(",)", ")")
        where = f" for {values}" if values else ""
        if self.op == "view":
            shape = str(self.target).replace(",)", ")")
            return f"raises{where}: {layout} viewed as {shape}"
        if self.op == "view_dtype":
            return (f"raises{where}: {layout} viewed from {self.itemsizes[0]}-byte to "
                    f"{self.itemsizes[1]}-byte elements")
        if self.op == "rows":
            return f"last dim not unit-stride{where}: {layout}"
        if self.op == "overlap":
            return f"elements share memory{where}: {layout}"
        if self.op == "windows":
            return f"overlapping windows share elements{where}: {layout}"
        return f"not contiguous{where}: {layout}"

    def as_json(self) -> dict:
        """The op, the values, the tensor, the view's target or the element sizes (where the
        op has them), torch's error and the sentence the note shows."""
        out = {"op": self.op, "values": dict(self.values), "sizes": list(self.sizes),
               "strides": list(self.strides)}
        if self.op == "view":
            out["target"] = list(self.target)
        if self.op == "view_dtype":
            out["itemsizes"] = list(self.itemsizes)
        if self.any_size:
            out["any_size"] = list(self.any_size)
        return {**out, "error": self.error, "description": self.describe()}

    @staticmethod
    def from_json(data: dict) -> "Witness":
        return Witness(data["op"], tuple(data["values"].items()), tuple(data["sizes"]),
                       tuple(data["strides"]), tuple(data.get("target", ())),
                       tuple(data.get("itemsizes", (0, 0))), data["error"],
                       tuple(data.get("any_size", ())))


def _shown(env: dict) -> tuple[tuple[str, int], ...]:
    return tuple((shown(name), value) for name, value in env.items() if not name.startswith("?"))


def _search(names: Names, attempt: Callable[[dict], Optional[Witness]],
            sizes: Sequence[Size] = (), path: PathConditions = NO_CONDITIONS) \
        -> Optional[Witness]:
    """`search`, where a name of a size an op made (`sizes.made_symbol`) is no choice: a
    witness holds only if the op fails at every size in DOMAIN for each such name, the other
    names as they are (the op may give it only some of them, such as 3 or more). An
    assignment the path to the sink rules out (`path`: a size a test shows is not 1, a view
    the path ran that would raise) is no witness. `sizes`: the problem's, whose literals (and
    twice a literal a name is divided by) are tried too."""
    if path != NO_CONDITIONS:
        attempt = _on_path(attempt, path)
    made = [name for name in names.atoms if is_made(name)]
    if not made:
        return search(names, attempt, sizes)

    def for_any(env: dict) -> Optional[Witness]:
        found = attempt(env)
        if found is None:
            return None
        for name in made:
            for value in DOMAIN:
                other = attempt(dict(env, **{name: value}))
                if other is None or dict(other.values).get(shown(name)) != value:
                    return None  # passes at this size, or only where a name is solved for
        return replace(found, any_size=tuple(shown(name) for name in made))

    return search(names, for_any, sizes)


def _on_path(attempt: Callable[[dict], Optional[Witness]], path: PathConditions) \
        -> Callable[[dict], Optional[Witness]]:
    """`attempt` at the assignments the path keeps: judged on the values the witness names
    (a view's witness may solve one name for another value than the one tried)."""
    def kept(env: dict) -> Optional[Witness]:
        found = attempt(env)
        return None if found is None or path.excludes(dict(found.values)) else found

    return kept


# --- the witnesses rules ask for --------------------------------------------------------------
def own_sizes(geometry: Geometry, target: Sequence[object], owner: Optional[str]) -> list:
    """`target` with the viewed tensor's own `owner.size(i)` read from `geometry`'s dim i
    (counted from either end): at the rank the geometry has, that is the dim the code reads.
    A witness built on an assumed geometry otherwise gives the symbol a value of its own
    (`v.view(v.size(0), -1)` of a tensor whose dim 0 was narrowed to 1 is not a view to 4
    rows)."""
    if owner is None:
        return list(target)
    out = []
    for size in target:
        if isinstance(size, tuple):
            for index, axis in enumerate(geometry.axes):
                for name in own_size_names(owner, index, geometry.rank):
                    if name in size[1] and axis.size is not None:
                        count = size[1].count(name)
                        size = substitute(size, name, 1)  # the factor goes, the dim's size comes
                        for _ in range(count):
                            size = multiply(size, axis.size)
        out.append(size)
    return out


def view_witness(geometry: Geometry, target: Sequence[object],
                 path: PathConditions = NO_CONDITIONS) -> Optional[Witness]:
    """A tensor of `geometry` whose `.view(*target)` raises; `target` as `Call.sizes` gives
    it (sizes and "-1")."""
    viewed = _ViewProblem(geometry, target)
    if viewed.names is None:
        return None

    def attempt(env: dict) -> Optional[Witness]:
        made = viewed.at(env)
        if made is None or view_strides(*made[1:]) is not None:
            return None
        env, sizes, strides, wanted = made
        return Witness("view", _shown(env), sizes, strides, tuple(wanted), error=VIEW_ERROR)

    return _search(viewed.names, attempt,
                   [s for s in target if s != "-1"] + list(geometry.sizes), path)


def view_with_holes_witness(geometry: Geometry, target: Sequence[object],
                            most: int = 8) -> Optional[Witness]:
    """A tensor of `geometry`, not contiguous, whose `.view(*target)` works: where `reshape`
    returns a view although it copies for generic sizes. A view is exactly as contiguous as
    its input (it reads the same elements in the same order), so there the reshape's result
    is not contiguous. Each name is tried at 1 and at a size of its own (size-1 dims are what
    let dims merge); None when none gives one, or when there are more than `most` names."""
    viewed = _ViewProblem(geometry, target)
    return _holes(viewed) if viewed.searchable(most) else None


def reshape_proven_contiguous(geometry: Geometry, target: Sequence[object],
                              most: int = 8) -> bool:
    """Whether `reshape(*target)` of a tensor of `geometry` that copies for generic sizes
    returns a contiguous tensor for every size: no size lets it view the tensor while it is
    not contiguous (with more than `most` names, not proven). Size-1 dims are what let dims
    merge: each name is tried at 1 and at a size of its own, and where a size is made of
    others (`mh // m`, which is 1 where m <= mh < 2m), every name at every size from 1 to 4
    (with more than `SMALL_NAMES` names, not proven)."""
    viewed = _ViewProblem(geometry, target)
    if not viewed.searchable(most) or \
            viewed.composite and len(viewed.names.atoms) > SMALL_NAMES:
        return False
    return _holes(viewed) is None


SMALL_NAMES = 4  # 4 ** 4 assignments at most


def _holes(viewed: "_ViewProblem") -> Optional[Witness]:
    """`view_with_holes_witness` on a problem of at most a few names."""
    order = list(viewed.names.atoms)
    masks = ({name: 1 if mask >> i & 1 else DOMAIN[i % len(DOMAIN)]
              for i, name in enumerate(order)} for mask in range(1 << len(order)))
    small = (dict(zip(order, values)) for values in itertools.product((1, 2, 3, 4), repeat=len(
        order))) if viewed.composite and len(order) <= SMALL_NAMES else ()
    for env in itertools.chain(masks, small):
        made = viewed.at(env)
        if made is not None and not is_contiguous(made[1], made[2]) and \
                view_strides(*made[1:]) is not None:
            env, sizes, strides, wanted = made
            return Witness("contiguous", _shown(env), sizes, strides, tuple(wanted),
                           error="not contiguous")
    return None


class _ViewProblem:
    """`.view(*target)` of a tensor of `geometry`, made concrete under an assignment."""

    def __init__(self, geometry: Geometry, target: Sequence[object]) -> None:
        self.geometry, self.target = geometry, target
        names = Names()
        self.source = [names.add(s) for s in geometry.sizes]
        self.wildcard = [i for i, s in enumerate(target) if s == "-1"]
        self.shape = [None if s == "-1" else names.add(s) for s in target]
        self.names = names if len(self.wildcard) <= 1 else None
        # a size made of other names (`mh // m`, `min(C, D)`): setting names to 1 may never
        # make it 1
        self.composite = any(not is_atom(factor) for size in list(geometry.sizes) + list(target)
                             if size is not None and size != WILDCARD for factor in size[1])
        self.sides = (factors(geometry.sizes, self.source),
                      factors([s for s in target if s != "-1"],
                              [n for n in self.shape if n is not None]))

    def searchable(self, most: int) -> bool:
        """A view of one -1 at most, whose sizes are made of at most `most` names."""
        return self.names is not None and len(self.names.atoms) <= most

    def at(self, env: dict, solving: bool = True):
        """(the assignment, sizes, strides, the view's concrete shape), or None where the
        assignment gives no such tensor or no shape of its number of elements (one name
        is solved for where the two sides' products differ)."""
        made = tensor_at(self.geometry, self.source, env)
        if made is None:
            return None
        sizes, strides, _ = made
        wanted = [0 if s == "-1" else size_value(s, env, name)
                  for s, name in zip(self.target, self.shape)]
        if any(n is None or n < 1 for i, n in enumerate(wanted) if i not in self.wildcard):
            return None
        if not self.wildcard and prod(wanted) != prod(sizes):
            solved = solve(env, self.sides) if solving else None
            return self.at(solved, False) if solved is not None else None
        if self.wildcard:
            rest = prod(n for i, n in enumerate(wanted) if i != self.wildcard[0])
            if prod(sizes) % rest:
                return None
            wanted[self.wildcard[0]] = prod(sizes) // rest
        if prod(wanted) != prod(sizes):
            return None
        return env, sizes, strides, wanted


def dtype_view_witness(geometry: Geometry, itemsize: int, new_itemsize: int,
                       path: PathConditions = NO_CONDITIONS) -> Optional[Witness]:
    """A tensor of `geometry` whose `.view(dtype)` to `new_itemsize`-byte elements raises
    because its last dim is not unit-stride (the check every size change makes)."""
    names = Names()
    source = [names.add(s) for s in geometry.sizes]

    ratio = max(new_itemsize // itemsize, 1)

    def attempt(env: dict) -> Optional[Witness]:
        made = tensor_at(geometry, source, env)
        if made is None:
            return None
        sizes, strides, starts = made
        if dtype_view_error(sizes, strides, 0, itemsize, new_itemsize) != STRIDE_ERROR:
            return None
        if any(stride % ratio for stride in starts):
            return None  # torch checks the storage offset first: where the view starts past
            # the first element by a multiple of these, only even ones give the stride error
        return Witness("view_dtype", _shown(env), sizes, strides,
                       itemsizes=(itemsize, new_itemsize), error=STRIDE_ERROR)

    return _search(names, attempt, geometry.sizes, path)


def noncontiguous_witness(geometry: Geometry, rows: bool = False,
                          path: PathConditions = NO_CONDITIONS) -> Optional[Witness]:
    """A tensor of `geometry` that is not contiguous: what a raw read, a strideless kernel, a
    collective or a contract that needs row-major memory fails on. With `rows`, one whose last
    dim is not unit-stride (what a contract on unit-stride rows fails on)."""
    def fails(sizes: tuple, strides: tuple) -> Optional[tuple[str, str]]:
        if rows:
            return None if strides[-1:] == (1,) else ("rows", "last dim not unit-stride")
        return None if is_contiguous(sizes, strides) else ("contiguous", "not contiguous")

    return _layout_witness(geometry, fails, path)


def overlap_witness(geometry: Geometry, path: PathConditions = NO_CONDITIONS) \
        -> Optional[Witness]:
    """A tensor of `geometry` in which several elements are one memory location (a dim of two
    or more elements with stride 0, as `expand` makes it): what an in-place op that checks for
    overlap raises on, and what a fill or an item assignment writes through to every alias."""
    return _layout_witness(geometry, lambda sizes, strides: ("overlap", OVERLAP_ERROR)
                           if has_internal_overlap(sizes, strides) else None, path)


def _layout_witness(geometry: Geometry, fails: Callable[[tuple, tuple], Optional[tuple]],
                    path: PathConditions) -> Optional[Witness]:
    """The first tensor of `geometry` the search builds on which `fails(sizes, strides)` gives
    the witness's op and error."""
    names = Names()
    source = [names.add(s) for s in geometry.sizes]

    def attempt(env: dict) -> Optional[Witness]:
        made = tensor_at(geometry, source, env)
        if made is None:
            return None
        sizes, strides, _ = made
        failed = fails(sizes, strides)
        if failed is None:
            return None
        return Witness(failed[0], _shown(env), sizes, strides, error=failed[1])

    return _search(names, attempt, geometry.sizes, path)


def windows_witness(sizes: Sequence[Size], strides: Sequence[int]) -> Optional[Witness]:
    """A tensor of these sizes and literal strides (an `unfold`'s windows, an `as_strided`
    view) in which two elements are one memory location: each gets an in-place write once per
    window, with no error."""
    names = Names()
    source = [names.add(s) for s in sizes]

    def attempt(env: dict) -> Optional[Witness]:
        concrete = [size_value(s, env, name) for s, name in zip(sizes, source)]
        if any(n is None or n < 1 for n in concrete) or \
                not shares_elements(concrete, strides):
            return None
        return Witness("windows", _shown(env), tuple(concrete), tuple(strides),
                       error="overlapping windows share elements")

    return _search(names, attempt, sizes)
