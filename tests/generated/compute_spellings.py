"""The ops of generated programs that compute a new tensor (joins, products, elementwise
ops, reductions, dtype and memory-format conversions, 2-d nn ops), in the spellings code uses;
the views, cuts and index ops, and the table of them all (`OPS`), are in
tests/generated/op_spellings.py. Each builder takes (draw, var, name) and gives the
expression, the result's shape as source expressions, and its dtype where it changes."""
from __future__ import annotations

from hypothesis import strategies as st

CONVERT = ("half()", "double()", "float()", "bfloat16()", "to(torch.float16)",
           "to(torch.int32)", "to(torch.float64)", "to(torch.uint8)", "long()", "byte()")
CONVERTED = {"half()": "float16", "double()": "float64", "float()": "float32",
             "bfloat16()": "bfloat16", "to(torch.float16)": "float16",
             "to(torch.int32)": "int32", "to(torch.float64)": "float64",
             "to(torch.uint8)": "uint8", "long()": "int64", "byte()": "uint8"}



def mul(a: str, b: str) -> str:
    if a.isdigit() and b.isdigit():
        return str(int(a) * int(b))
    if a == "1":
        return b
    if b == "1":
        return a
    wrap = lambda s: f"({s})" if any(c in s for c in "+-/") else s  # noqa: E731
    return f"{wrap(a)} * {wrap(b)}"


def draw_dim(draw, rank: int) -> int:
    return draw(st.integers(-rank, rank - 1))


def position(d: int, rank: int) -> int:
    return d + rank if d < 0 else d


def combine(draw, v, name):
    r = len(v.shape)
    which = draw(st.sampled_from(["cat", "stack", "pad", "reshape", "contiguous", "clone",
                                  "repeat_interleave"]))
    d = draw_dim(draw, r)
    shape = list(v.shape)
    if which == "repeat_interleave":
        shape[position(d, r)] = mul("2", shape[position(d, r)])
        return f"{v.name}.repeat_interleave(2, {d})", shape
    if which == "cat":
        shape[position(d, r)] = mul("2", shape[position(d, r)])
        return f"torch.cat([{v.name}, {v.name}], {d})", shape
    if which == "stack":
        s = draw(st.integers(0, r))
        shape.insert(s, "2")
        return f"torch.stack([{v.name}, {v.name}], {s})", shape
    if which == "pad":
        shape[-1] = f"{shape[-1]} + 2"
        return f"F.pad({v.name}, (1, 1))", shape
    if which == "reshape":
        return f"{v.name}.reshape(-1)", [None]
    return f"{v.name}.{which}()", shape


def linalg(draw, v, name):
    r = len(v.shape)
    which = draw(st.sampled_from(["matmul", "at", "einsum"] + (["bmm"] if r == 3 else [])))
    shape = list(v.shape[:-1]) + [v.shape[-2]]
    if which == "matmul":
        return f"torch.matmul({v.name}, {v.name}.mT)", shape
    if which == "at":
        return f"{v.name} @ {v.name}.mT", shape
    if which == "bmm":
        return f"torch.bmm({v.name}, {v.name}.transpose(1, 2))", shape
    letters = "abcd"[:r]
    out = draw(st.permutations(letters))
    return f"torch.einsum('{letters}->{''.join(out)}', {v.name})", \
        [v.shape[letters.index(c)] for c in out]


def elementwise(draw, v, name):
    text = draw(st.sampled_from([f"{v.name} + 1", f"{v.name} * {v.name}", f"-{v.name}",
                                 f"torch.relu({v.name})", f"{v.name}.exp()",
                                 f"F.gelu({v.name})", f"torch.where({v.name} > 0, {v.name}, 0.0)",
                                 f"torch.add({v.name}, 1)"]))
    return text, list(v.shape)


def reduce(draw, v, name):
    r = len(v.shape)
    d = draw_dim(draw, r)
    fn = draw(st.sampled_from(["sum", "mean", "amax", "max", "median", "kthvalue", "topk"]))
    shape = list(v.shape)
    keep = draw(st.booleans())
    if keep or fn == "topk":
        shape[position(d, r)] = "1"
    else:
        del shape[position(d, r)]
    if fn in ("sum", "mean", "amax"):
        return f"{v.name}.{fn}({d}{', keepdim=True' if keep else ''})", shape
    # the (values, indices) pairs: by item or by field; k = 1, which every size allows
    args = {"max": f"{d}", "median": f"dim={d}", "kthvalue": f"1, {d}",
            "topk": f"1, {d}"}[fn] + (", keepdim=True" if keep and fn != "topk" else "")
    item = draw(st.sampled_from(["[0]", "[1]", ".values", ".indices"]))
    text = f"{v.name}.{fn}({args}){item}"
    return (text, shape, "int64") if item in ("[1]", ".indices") else (text, shape)


def convert(draw, v, name):
    method = draw(st.sampled_from(CONVERT))
    return f"{v.name}.{method}", list(v.shape), CONVERTED[method]


def channels_last(draw, v, name):
    text = draw(st.sampled_from([
        f"{v.name}.contiguous(memory_format=torch.channels_last)",
        f"{v.name}.to(memory_format=torch.channels_last)",
        f"{v.name}.contiguous(memory_format=torch.contiguous_format)"]))
    return text, list(v.shape)


def nn2d(draw, v, name):
    shape = list(v.shape)
    which = draw(st.sampled_from(["conv", "max", "avg", "interp", "adaptive"]))
    if which == "conv":
        shape[1] = "3"
        # the weight in the input's dtype: F.conv2d raises on a double input and a float weight
        return (f"F.conv2d({v.name}, torch.randn(3, {v.name}.size(1), 1, 1, "
                f"dtype={v.name}.dtype))", shape)
    if which in ("max", "avg"):
        return f"F.{which}_pool2d({v.name}, 1)", shape
    if which == "adaptive":
        shape[2:] = ["1", "1"]
        return f"F.adaptive_avg_pool2d({v.name}, 1)", shape
    shape[2:] = [mul(s, "2") for s in shape[2:]]
    return f"F.interpolate({v.name}, scale_factor=2)", shape
