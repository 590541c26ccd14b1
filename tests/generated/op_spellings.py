"""The ops a generated program applies, in the spellings code uses: methods, `torch.`
functions, operators and subscripts. Each op says which inputs it fits (by rank and dtype) and
writes its expression with the result's shape as source expressions. The parameters are chosen
to be valid for every size assignment (a narrow of length 1, a select of 0 or -1, a split of
1); where a size cannot be written, the result's own `vK.size(i)` stands for it. Here: the
views, cuts and index ops, and the table of every op (`OPS`); the ops that compute a new
tensor are tests/generated/compute_spellings.py's."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Optional

from hypothesis import strategies as st

from tests.generated.compute_spellings import (CONVERT, CONVERTED, channels_last, combine,
                                               convert, draw_dim, elementwise, linalg, mul,
                                               nn2d, position, reduce)

__all__ = ["CONVERT", "CONVERTED", "DTYPES", "OPS", "Made", "Op", "Var", "mul"]

# every dtype torch can view memory as (the float8/e8m0/float4 ones among them)
DTYPES = ("float32", "float64", "float16", "bfloat16", "int8", "uint8", "int16", "int32",
          "int64", "uint16", "uint32", "uint64", "bool", "complex64", "complex128",
          "complex32", "float8_e4m3fn", "float8_e5m2", "float8_e4m3fnuz", "float8_e5m2fnuz",
          "float8_e8m0fnu", "float4_e2m1fn_x2", "float", "half", "double", "long", "int",
          "short", "cfloat")


@dataclass(frozen=True)
class Var:
    name: str
    shape: tuple[str, ...]
    family: str  # the family of the op that made it
    dtype: str


@dataclass(frozen=True)
class Made:
    name: str
    text: str
    var: Var


@dataclass(frozen=True)
class Op:
    name: str
    family: str
    min_rank: int
    build: Callable  # (draw, var, name) -> (text, shape) or None
    max_rank: int = 4
    floats: bool = False  # needs a floating-point input

    def fits(self, var: Var) -> bool:
        return self.min_rank <= len(var.shape) <= self.max_rank and \
            (not self.floats or var.dtype in ("float32", "float64", "float16", "bfloat16"))

    def make(self, draw, var: Var, name: str) -> Optional[Made]:
        built = self.build(draw, var, name)
        if built is None:
            return None
        text, shape, *dtype = built
        shape = tuple(f"{name}.size({i})" if s is None else s for i, s in enumerate(shape))
        return Made(name, text, Var(name, shape, self.family, dtype[0] if dtype else var.dtype))


def _swap(shape, a, b):
    out = list(shape)
    out[a], out[b] = out[b], out[a]
    return out


def transpose(spelling: str):
    def build(draw, v, name):
        r = len(v.shape)
        a, b = draw_dim(draw, r), draw_dim(draw, r)
        shape = _swap(v.shape, position(a, r), position(b, r))
        if spelling == "method":
            return f"{v.name}.{draw(st.sampled_from(['transpose', 'swapaxes', 'swapdims']))}" \
                   f"({a}, {b})", shape
        return f"torch.{draw(st.sampled_from(['transpose', 'swapaxes']))}({v.name}, {a}, {b})", \
            shape
    return build


def permute(spelling: str):
    def build(draw, v, name):
        order = draw(st.permutations(range(len(v.shape))))
        shape = [v.shape[i] for i in order]
        dims = ", ".join(map(str, order))
        if spelling == "method":
            return f"{v.name}.permute({dims})", shape
        return f"torch.permute({v.name}, ({dims},))", shape
    return build


def movedim(draw, v, name):
    r = len(v.shape)
    a, b = draw_dim(draw, r), draw_dim(draw, r)
    shape = list(v.shape)
    shape.insert(position(b, r), shape.pop(position(a, r)))
    fn = draw(st.sampled_from(["x.movedim", "x.moveaxis", "torch.movedim"]))
    return (f"torch.movedim({v.name}, {a}, {b})" if fn.startswith("torch")
            else f"{v.name}.{fn[2:]}({a}, {b})"), shape


def matrix_t(draw, v, name):
    attr = draw(st.sampled_from(["mT", "T", "t()"] if len(v.shape) == 2 else ["mT"]))
    return f"{v.name}.{attr}", _swap(v.shape, -1, -2)


def narrow(draw, v, name):
    r = len(v.shape)
    d = draw_dim(draw, r)
    start = draw(st.sampled_from(["0", f"{v.shape[d]} - 1"]))
    shape = list(v.shape)
    shape[position(d, r)] = "1"
    if draw(st.booleans()):
        return f"{v.name}.narrow({d}, {start}, 1)", shape
    return f"torch.narrow({v.name}, {d}, {start}, 1)", shape


def select(draw, v, name):
    r = len(v.shape)
    d, i = draw_dim(draw, r), draw(st.sampled_from([0, -1]))
    shape = list(v.shape)
    del shape[position(d, r)]
    if draw(st.booleans()):
        return f"{v.name}.select({d}, {i})", shape
    return f"torch.select({v.name}, {d}, {i})", shape


def piece(draw, v, name):
    r = len(v.shape)
    d = draw_dim(draw, r)
    shape = list(v.shape)
    which = draw(st.sampled_from(["split", "chunk", "unbind", "sws", "tsplit", "tsplit_fn"]))
    at = draw(st.sampled_from([0, -1]))
    if which == "unbind":
        del shape[position(d, r)]
        fn = draw(st.sampled_from([f"{v.name}.unbind({d})", f"torch.unbind({v.name}, {d})"]))
        return f"{fn}[{at}]", shape
    if which == "split":
        shape[position(d, r)] = "1"
        return f"{v.name}.split(1, {d})[{at}]", shape
    if which == "tsplit_fn":
        shape[position(d, r)] = "1"
        return f"torch.split({v.name}, 1, dim={d})[{at}]", shape
    if which == "sws":
        size = v.shape[position(d, r)]
        shape[position(d, r)] = "1" if at == 0 else f"{size} - 1"
        return f"{v.name}.split_with_sizes([1, {size} - 1], {d})[{at}]", shape
    shape[position(d, r)] = None
    fn = "chunk" if which == "chunk" else "tensor_split"
    return f"{v.name}.{fn}(2, {d})[0]", shape


def index(draw, v, name):
    r = len(v.shape)
    items, shape, used = [], [], 0
    if draw(st.booleans()) and r >= 2:  # a leading ellipsis
        items.append("...")
        keep = r - draw(st.integers(1, min(2, r)))
        shape, used = list(v.shape[:keep]), keep
    for dim in range(used, r):
        size = v.shape[dim]
        kind = draw(st.sampled_from(["all", "all", "int", "neg", "start", "step", "stop",
                                     "none"]))
        if kind == "none":
            items.append("None")
            shape.append("1")
        if kind in ("all", "none"):
            items.append(":")
            shape.append(size)
        elif kind in ("int", "neg"):
            items.append("0" if kind == "int" else "-1")
        elif kind == "start" and size != "1":  # (no empty tensors)
            items.append("1:")
            shape.append(f"{size} - 1")
        elif kind == "stop":
            items.append(":1")
            shape.append("1")
        elif kind == "step":
            items.append(draw(st.sampled_from(["::2", "::3"])))
            shape.append(None)
        else:
            items.append(":")
            shape.append(size)
    while items and items[-1] == ":" and draw(st.booleans()):
        items.pop()
    return f"{v.name}[{', '.join(items) or ':'}]", shape


def advanced(draw, v, name):
    r = len(v.shape)
    kind = draw(st.sampled_from(["list", "bool", "tensor"]))
    if kind == "bool":
        # a mask of every element: the selection's length follows the sizes, not the random
        # values (with `x > 0` a witness's sizes could select 0 or 1 elements in one run)
        return f"{v.name}[{v.name} == {v.name}]", [None]
    d = draw(st.integers(0, r - 1))
    picked = draw(st.sampled_from(["[0, 0]", "[0]"]))
    idx = picked if kind == "list" else f"torch.tensor({picked})"
    shape = list(v.shape)
    shape[d] = str(picked.count("0"))
    if draw(st.booleans()):  # counted from the back, after an ellipsis
        return f"{v.name}[{', '.join(['...', idx] + [':'] * (r - 1 - d))}]", shape
    return f"{v.name}[{', '.join([':'] * d + [idx])}]", shape


def expand(draw, v, name):
    r = len(v.shape)
    d = draw(st.integers(0, r))
    shape = list(v.shape)
    shape.insert(d, "3")
    which = draw(st.sampled_from(["expand", "expand_m1", "broadcast_to", "repeat"]))
    unsq = f"{v.name}.unsqueeze({d})"
    if which == "expand":
        return f"{unsq}.expand({', '.join(shape)})", shape
    if which == "expand_m1":
        return f"{unsq}.expand({', '.join('3' if i == d else '-1' for i in range(r + 1))})", shape
    if which == "broadcast_to":
        return f"torch.broadcast_to({unsq}, ({', '.join(shape)},))", shape
    return f"{unsq}.repeat({', '.join('3' if i == d else '1' for i in range(r + 1))})", shape


def unfold(draw, v, name):
    r = len(v.shape)
    d = draw_dim(draw, r)
    shape = list(v.shape) + ["1"]
    return f"{v.name}.unfold({d}, 1, 1)", shape


def diagonal(draw, v, name):
    r = len(v.shape)
    a, b = draw(st.permutations(range(r)))[:2]
    shape = [s for i, s in enumerate(v.shape) if i not in (a, b)] + [None]
    return f"{v.name}.diagonal(0, {a}, {b})", shape


def squeeze_family(draw, v, name):
    r = len(v.shape)
    which = draw(st.sampled_from(["unsqueeze", "squeeze", "flatten", "unflatten"]))
    shape = list(v.shape)
    if which == "unsqueeze":
        d = draw(st.integers(-r - 1, r))
        shape.insert(position(d, r + 1), "1")
        return draw(st.sampled_from([f"{v.name}.unsqueeze({d})",
                                     f"torch.unsqueeze({v.name}, {d})"])), shape
    if which == "squeeze":
        ones = [i for i, s in enumerate(shape) if s == "1"]
        if not ones:
            return None
        d = draw(st.sampled_from(ones))
        del shape[d]
        return f"{v.name}.squeeze({d})", shape
    if which == "flatten":
        a = draw(st.integers(0, r - 1))
        b = draw(st.integers(a, r - 1))
        merged = shape[a]
        for s in shape[a + 1:b + 1]:
            merged = mul(merged, s)
        shape[a:b + 1] = [merged]
        return draw(st.sampled_from([f"{v.name}.flatten({a}, {b})",
                                     f"torch.flatten({v.name}, {a}, {b})"])), shape
    d = draw_dim(draw, r)
    shape[position(d, r):position(d, r) + 1] = ["1", shape[position(d, r)]]
    return f"{v.name}.unflatten({d}, (1, -1))", shape


OPS = (
    Op("transpose", "permute", 2, transpose("method")),
    Op("torch.transpose", "permute", 2, transpose("function")),
    Op("permute", "permute", 2, permute("method")),
    Op("torch.permute", "permute", 2, permute("function")),
    Op("movedim", "permute", 2, movedim),
    Op("mT", "permute", 2, matrix_t),
    Op("narrow", "slice", 1, narrow),
    Op("select", "slice", 1, select),
    Op("split", "split", 1, piece),
    Op("index", "index", 1, index),
    Op("advanced index", "index", 1, advanced),
    Op("expand", "expand", 1, expand, max_rank=3),
    Op("unfold", "slice", 1, unfold, max_rank=3),
    Op("diagonal", "slice", 2, diagonal),
    Op("squeeze", "reshape", 1, squeeze_family),
    Op("combine", "combine", 1, combine, max_rank=4),
    Op("linalg", "linalg", 2, linalg, max_rank=3, floats=True),
    Op("elementwise", "elementwise", 1, elementwise, floats=True),
    Op("reduce", "reduce", 1, reduce, floats=True),
    Op("convert", "dtype", 1, convert, floats=True),
    Op("channels_last", "memory_format", 4, channels_last),
    Op("nn2d", "memory_format", 4, nn2d, max_rank=4, floats=True),
)
