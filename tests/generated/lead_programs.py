"""Programs over leading dims the code never counts: `*batch, C, D = x.shape`, then ops that
count dims from the back and views into `(*batch, ...)` (the interleaved rotary layout,
`x.view(*batch, D // 2, 2).transpose(-1, -2).view(*batch, D)`, is one of them).

A variable's shape is written as source expressions whose first entry is `*batch` while the
leading dims are kept (`("*batch", "C", "D")`); an op that folds them away (`reshape(-1, D)`)
gives a shape of known rank, on which the ops of tests/generated/op_spellings.py go on. torch
runs each program with none, one and two leading dims: the generic run has two, every size
above 1 and all different. A size no expression names is read as `vK.size(-i)`, counted from
the back, since the rank is not known.
"""
from __future__ import annotations

from typing import Optional

from hypothesis import strategies as st

from tests.generated.op_spellings import CONVERT, CONVERTED, Made, Var, mul

LEAD = "*batch"
NAMES = ("C", "D")
TRAILING = (4, 6)  # C, D in the generic run (D even: `D // 2` splits it)
LEADING = (5, 3)  # the leading dims' sizes, as many as a run has


def has_lead(var: Var) -> bool:
    return bool(var.shape) and var.shape[0] == LEAD


def prologue(trailing: int, sliced: bool = False) -> tuple[str, ...]:
    """`*batch, C, D = x.shape`, or (`sliced`) the same read by slices of the shape:
    `batch = x.shape[:-2]` and `C, D = x.shape[-2:]`."""
    names = ", ".join(NAMES[-trailing:])
    if not sliced:
        return (f"{LEAD}, {names} = x.shape",)
    return (f"{LEAD[1:]} = x.shape[:-{trailing}]",
            f"{names}{',' if trailing == 1 else ''} = x.shape[-{trailing}:]")


@st.composite
def assignments(draw, trailing: int) -> tuple[tuple[int, ...], ...]:
    """The generic run (two leading dims), then none and one, size-1 dims, and a small draw."""
    back = TRAILING[-trailing:]
    out = [LEADING + back, back, LEADING[:1] + back, (1,) + back]
    k = draw(st.integers(0, trailing - 1))
    out.append(LEADING[:1] + tuple(1 if i == k else s for i, s in enumerate(back)))
    lead = draw(st.integers(0, 2))
    out.append(tuple(draw(st.lists(st.integers(1, 4), min_size=lead + trailing,
                                   max_size=lead + trailing))))
    return tuple(dict.fromkeys(out))


def _back(shape: list, name: str) -> tuple[str, ...]:
    """The shape with every unnamed size (None) read from the result, counted from the back."""
    n = len(shape)
    return tuple(f"{name}.size({i - n})" if s is None else s for i, s in enumerate(shape))


def _made(name: str, text: str, shape: list, v: Var, family: str,
          dtype: Optional[str] = None) -> Made:
    if shape and shape[0] == LEAD:
        sizes = (LEAD,) + _back(shape[1:], name)
    else:  # the leading dims folded away: a shape of known rank
        sizes = tuple(f"{name}.size({i})" if s is None else s for i, s in enumerate(shape))
    return Made(name, text, Var(name, sizes, family, dtype or v.dtype))


def _swap(draw, v: Var, name: str):
    rest = list(v.shape[1:])
    if len(rest) >= 3 and draw(st.integers(0, 3)) == 0:
        rest[-1], rest[-3] = rest[-3], rest[-1]
        return f"{v.name}.transpose(-3, -1)", [LEAD] + rest
    rest[-1], rest[-2] = rest[-2], rest[-1]
    text = draw(st.sampled_from([f"{v.name}.transpose(-1, -2)", f"{v.name}.transpose(-2, -1)",
                                 f"{v.name}.swapaxes(-1, -2)", f"{v.name}.mT",
                                 f"torch.transpose({v.name}, -2, -1)"]))
    return text, [LEAD] + rest


def _trailing_target(draw, rest: list) -> list:
    """A shape for the dims after the lead: the same, the last two merged, the last split in
    two (`D // 2, 2`), a 1 added, or -1 for all of them."""
    choice = draw(st.sampled_from(["own", "merge", "split", "add_one", "flat"]))
    if choice == "merge" and len(rest) >= 2:
        return rest[:-2] + [mul(rest[-2], rest[-1])]
    if choice == "split":
        last = rest[-1] if rest[-1].isidentifier() or rest[-1].isdigit() else f"({rest[-1]})"
        return rest[:-1] + [f"{last} // 2", "2"]
    if choice == "add_one":
        rest = list(rest)
        rest.insert(draw(st.integers(0, len(rest))), "1")
        return rest
    if choice == "flat":
        return ["-1"]
    return list(rest)


def _reshaped(draw, v: Var, name: str):
    """A view or reshape into `(*batch, ...)`; the shape made has `-1` only as all the dims
    after the lead, whose size is read back from the result."""
    target = _trailing_target(draw, list(v.shape[1:]))
    method = draw(st.sampled_from(["view", "view", "reshape"]))
    text = f"{v.name}.{method}({', '.join([LEAD] + target)})"
    return text, [LEAD] + [None if s == "-1" else s for s in target]


def _folded(draw, v: Var, name: str):
    """The leading dims folded into one, or every dim into one."""
    last = v.shape[-1]
    which = draw(st.sampled_from(["reshape", "flatten", "view_flat"]))
    if which == "reshape":
        return f"{v.name}.reshape(-1, {last})", [None, last]
    if which == "flatten" and len(v.shape) >= 3:
        return f"{v.name}.flatten(0, -2)", [None, last]
    return f"{v.name}.reshape(-1)", [None]


def _cut(draw, v: Var, name: str):
    """A cut of a dim counted from the back: narrow, a step, a slice, an index."""
    rest = list(v.shape[1:])
    which = draw(st.sampled_from(["narrow", "step", "head", "tail", "select", "none"]))
    if which == "narrow":
        d = draw(st.integers(-len(rest), -1))
        rest[d] = "1"
        return f"{v.name}.narrow({d}, 0, 1)", [LEAD] + rest
    if which == "step":
        rest[-1] = None
        return f"{v.name}[..., ::2]", [LEAD] + rest
    if which == "head":
        rest[-1] = "1"
        return f"{v.name}[..., :1]", [LEAD] + rest
    if which == "tail" and len(rest) >= 2 and rest[-2] != "1":
        rest[-2] = f"{rest[-2]} - 1"
        return f"{v.name}[..., 1:, :]", [LEAD] + rest
    if which == "select" and len(rest) >= 2:
        return f"{v.name}[..., 0]", [LEAD] + rest[:-1]
    d = draw(st.sampled_from([-1, -2]))
    rest.insert(len(rest) + d + 1, "1")
    return f"{v.name}.unsqueeze({d})", [LEAD] + rest


def _expand(draw, v: Var, name: str):
    shape = list(v.shape) + ["3"]
    return f"{v.name}.unsqueeze(-1).expand({', '.join(shape)})", shape


def _keeping(draw, v: Var, name: str):
    """Ops that keep every size: elementwise ones, a copy, a dtype conversion."""
    which = draw(st.sampled_from(["add", "relu", "mul", "contiguous", "clone", "convert",
                                  "scale"]))
    if which == "convert":
        method = draw(st.sampled_from(CONVERT))
        return f"{v.name}.{method}", list(v.shape), CONVERTED[method]
    # "scale": times a tensor whose shape the code does not show (0-d when run)
    text = {"add": f"{v.name} + 1", "relu": f"torch.relu({v.name})",
            "mul": f"{v.name} * {v.name}", "contiguous": f"{v.name}.contiguous()",
            "clone": f"{v.name}.clone()", "scale": f"{v.name} * torch.tensor(2.0)"}[which]
    return text, list(v.shape)


def _fresh(draw, v: Var, name: str):
    """A new tensor of the variable's shape, made from its lead and its last sizes
    (`torch.zeros(*batch, C, D)`)."""
    fn = draw(st.sampled_from(["zeros", "ones"]))  # values a fix must keep: not random
    return f"torch.{fn}({', '.join(v.shape)})", list(v.shape), "float32"


def _reduce(draw, v: Var, name: str):
    fn = draw(st.sampled_from(["sum", "mean", "amax"]))
    if draw(st.booleans()):
        return f"{v.name}.{fn}(-1, keepdim=True)", list(v.shape[:-1]) + ["1"]
    return f"{v.name}.{fn}(-1)", list(v.shape[:-1])


def _matmul(draw, v: Var, name: str):
    return f"{v.name} @ {v.name}.mT", list(v.shape[:-1]) + [v.shape[-2]]


# (name, family, least number of dims after the lead, floats only, builder)
LEAD_OPS = (
    ("swap", "permute", 2, False, _swap),
    ("reshape", "reshape", 1, False, _reshaped),
    ("fold", "reshape", 1, False, _folded),
    ("cut", "slice", 1, False, _cut),
    ("expand", "expand", 1, False, _expand),
    ("keep", "elementwise", 1, True, _keeping),
    ("fresh", "factory", 1, False, _fresh),
    ("reduce", "reduce", 2, True, _reduce),
    ("matmul", "linalg", 2, True, _matmul),
)
FLOATS = ("float32", "float64", "float16", "bfloat16")


def lead_ops(v: Var) -> list:
    return [op for op in LEAD_OPS if len(v.shape) - 1 >= op[2] and
            (not op[3] or v.dtype in FLOATS)]


def make(draw, op, v: Var, name: str) -> Optional[Made]:
    built = op[4](draw, v, name)
    if built is None:
        return None
    text, shape, *dtype = built
    return _made(name, text, shape, v, op[1], dtype[0] if dtype else None)


def view_target(draw, v: Var) -> tuple[str, ...]:
    """A target for a view of a variable that keeps the lead: into `(*batch, ...)`, or folding
    the leading dims (`-1, D`), or every dim (`-1`)."""
    which = draw(st.sampled_from(["lead", "lead", "fold", "flat"]))
    if which == "fold":
        return ("-1", v.shape[-1])
    if which == "flat":
        return ("-1",)
    return tuple([LEAD] + _trailing_target(draw, list(v.shape[1:])))


def size_guard(draw, v: Var) -> str:
    """A size of `v` counted from the back against 1."""
    from tests.generated.programs import UNIT_TESTS

    dim = draw(st.integers(-(len(v.shape) - 1), -1))
    read = draw(st.sampled_from([f"{v.name}.shape[{dim}]", f"{v.name}.size({dim})"]))
    return f"{read} {draw(st.sampled_from(UNIT_TESTS))}"
