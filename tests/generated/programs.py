"""Random tensor programs, as Hypothesis strategies (so that every failure shrinks for free).

A program is one function: a prologue that makes the input `x` (literal sizes, size parameters,
`B, N, C = x.shape` or `x.size(i)`), then straight-line statements `vK = <op on an earlier
variable>` and sinks that read one variable: `.view(shape)`, `.view(dtype)`, `.data_ptr()`
(the contiguity probe) and `.add_(1)` (an in-place write, which raises where elements share
memory). Some sinks run under a condition the code states, in a conditional
expression (`sK = v2.view(-1) if v2.shape[1] == 1 else None`): a test of contiguity, of a size
against 1 or of the rank, which the engine takes as evidence (path conditions). One statement
may choose between two variables of one shape by a parameter `p` (`v3 = v1 if p else
v1.contiguous()`), and the program runs down both paths: the layouts join. Each statement
knows its op family, and each variable its shape as source expressions, so that view targets
are written the way code writes them (`B, N * C`, `-1`, `v3.size(0), -1`). The ops themselves
are in tests/generated/op_spellings.py.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from hypothesis import strategies as st

from tests.generated import lead_programs as lead
from tests.generated.op_spellings import DTYPES, OPS, Made, Var, mul

SYMBOLS = ("B", "N", "C", "D")
GENERIC = (4, 5, 6, 7)  # every symbol > 3 and distinct: the sizes real code runs with


@dataclass(frozen=True)
class Line:
    text: str  # the statement, without indentation
    kind: str  # "op", "view", "dtype_view", "probe", "write"
    family: str  # the op family of the statement (sinks: of the op that made their tensor)
    target: str = ""  # sinks: the variable read
    op: str = ""  # the op's spelling, for reports
    guard: str = ""  # sinks: the condition the sink runs under (`sK = ... if GUARD else None`)


@dataclass(frozen=True)
class Program:
    form: str  # "literal", "params", "unpack", "size", "opaque", "lead"
    params: tuple[str, ...]
    prologue: tuple[str, ...]
    lines: tuple[Line, ...]
    input_rank: int
    literal_shape: tuple[int, ...] = ()
    assignments: tuple[tuple[int, ...], ...] = field(default=((),))
    paths: bool = False  # some statement chooses by the parameter `p` (`v3 = v1 if p else v2`)

    def source(self) -> str:
        body = list(self.prologue) + [line.text for line in self.lines]
        params = self.params + (("p",) if self.paths else ())
        return "import torch\nimport torch.nn.functional as F\n\n\n" \
               f"def f({', '.join(params)}):\n" + "".join(f"    {s}\n" for s in body)

    def runs(self, sizes: tuple[int, ...]) -> list[tuple[int, ...]]:
        """The runs at input sizes `sizes`: with paths, once down each (`p` last: 1, 0)."""
        return [sizes + (1,), sizes + (0,)] if self.paths else [sizes]

    @property
    def first_line(self) -> int:
        """The source line of `lines[0]` (1-based)."""
        return 6 + len(self.prologue)

    def __str__(self) -> str:
        sizes = ", ".join(str(a) for a in self.assignments)
        return f"{self.source()}# sizes {', '.join(self.symbols)}: {sizes}"

    @property
    def symbols(self) -> tuple[str, ...]:
        if self.form == "lead":
            return ("leading dims",) + lead.NAMES[len(lead.LEADING) - self.input_rank:]
        return SYMBOLS[:self.input_rank] if self.form != "literal" else ()


def _prologue(form: str, rank: int, literal_shape: tuple[int, ...]):
    names = SYMBOLS[:rank]
    if form == "opaque":  # the code never shows x's rank: its sizes are read where an op needs
        return ("x",), (), [f"x.size({i})" for i in range(rank)]
    if form == "lead":  # `*batch, C, D = x.shape`: x's rank is `rank` dims after the lead
        return ("x",), lead.prologue(rank), [lead.LEAD] + list(lead.NAMES[-rank:])
    if form == "literal":
        return (), (f"x = torch.randn({', '.join(map(str, literal_shape))})",), \
            [str(s) for s in literal_shape]
    if form == "params":
        return names, (f"x = torch.randn({', '.join(names)})",), list(names)
    if form == "unpack":
        return ("x",), (f"{', '.join(names)}{',' if rank == 1 else ''} = x.shape",), list(names)
    return ("x",), tuple(f"{n} = x.size({i})" for i, n in enumerate(names)), list(names)


@st.composite
def assignments(draw, rank: int) -> tuple[tuple[int, ...], ...]:
    """The generic sizes, then some with size-1 dims (and one more draw of small sizes)."""
    generic = GENERIC[:rank]
    ones = draw(st.lists(st.integers(0, rank - 1), min_size=1, max_size=2, unique=True))
    out = [generic] + [tuple(1 if i == k else s for i, s in enumerate(generic)) for k in ones]
    out.append(tuple(draw(st.lists(st.integers(1, 4), min_size=rank, max_size=rank))))
    return tuple(dict.fromkeys(out))


def view_target(draw, var: Var) -> tuple[str, ...]:
    """A target shape for `var.view(...)`: its own shape, with size-1 dims added or dropped,
    adjacent dims merged, or a -1 standing for some of them."""
    shape = list(var.shape)
    rank = len(shape)
    choice = draw(st.sampled_from(["own", "merge", "flat", "keep_first", "keep_last",
                                   "add_one", "drop_one", "merge_add", "sizes"]))
    if choice == "flat" or rank == 0:
        return ("-1",)
    if choice == "keep_first" and rank >= 2:
        return (shape[0], "-1")
    if choice == "keep_last" and rank >= 2:
        return ("-1", shape[-1])
    if choice == "sizes" and rank >= 2:
        return (f"{var.name}.size(0)", "-1")
    if choice in ("merge", "merge_add") and rank >= 2:
        i = draw(st.integers(0, rank - 2))
        shape[i:i + 2] = [mul(shape[i], shape[i + 1])]
        if choice == "merge_add":
            shape.insert(draw(st.integers(0, len(shape))), "1")
        return tuple(shape)
    if choice == "add_one":
        shape.insert(draw(st.integers(0, rank)), "1")
        return tuple(shape)
    if choice == "drop_one" and "1" in shape:
        shape.remove("1")
        return tuple(shape) or ("1",)
    return tuple(shape)


FORMS = ("literal", "params", "unpack", "size")


@st.composite
def programs(draw, max_ops: int = 5, forms: tuple[str, ...] = FORMS) -> Program:
    """A program of one of `forms`: the input's sizes literal, parameters, unpacked from
    `x.shape`, read by `x.size(i)`, (`opaque`) a tensor whose rank the code never shows,
    which torch runs at the rank drawn and a witness may name at another, or (`lead`) one
    whose last dims are named after a starred unpack (tests/generated/lead_programs.py)."""
    form = draw(st.sampled_from(forms))
    rank = draw(st.integers(1, 2 if form == "lead" else 4))
    literal_shape = tuple(draw(st.lists(st.integers(1, 4), min_size=rank, max_size=rank))) \
        if form == "literal" else ()
    params, prologue, shape = _prologue(form, rank, literal_shape)
    if form == "lead":
        prologue = lead.prologue(rank, sliced=draw(st.booleans()))
    names = tuple(SYMBOLS[:rank]) if form not in ("literal", "opaque", "lead") else \
        lead.NAMES[-rank:] if form == "lead" else ()
    variables = [Var("x", tuple(shape), "input", "float32")]
    lines: list[Line] = []
    for k in range(draw(st.integers(1, max_ops))):
        # mostly chains (the last variable, which shrinking prefers), some branching
        source = variables[-1 - draw(st.integers(0, min(2, len(variables) - 1)))]
        spellings = lead.lead_ops(source) if lead.has_lead(source) else \
            [op for op in OPS if op.fits(source)]
        if not spellings:  # a 0-d tensor
            continue
        if sum(line.family == "choice" for line in lines) < 2 and \
                draw(st.integers(0, 4)) == 0:  # paths that join: `vK = vA if p else vB`
            # (at most twice: two choices by one `p` take the same path, as two `if p:`
            # statements do, tests/test_named_paths.py)
            made = _choice(draw, source, variables, f"v{k}")
            lines.append(Line(f"{made.name} = {made.text}", "op", "choice", op="choice"))
            variables.append(made.var)
            continue
        op = draw(st.sampled_from(spellings))
        made = lead.make(draw, op, source, f"v{k}") if lead.has_lead(source) else \
            op.make(draw, source, f"v{k}")
        if made is None:
            continue
        family, spelled = (op[1], op[0]) if lead.has_lead(source) else (op.family, op.name)
        lines.append(Line(f"{made.name} = {made.text}", "op", family, op=spelled))
        variables.append(made.var)
        if draw(st.booleans()):
            lines.append(_sink(draw, made.var, len(lines), names))
    lines.append(_sink(draw, variables[-1], len(lines), names))
    runs = ((),) if form == "literal" else draw(lead.assignments(rank)) if form == "lead" \
        else draw(assignments(rank))
    if form == "lead":  # the rank of the generic run, which has two leading dims
        rank += len(lead.LEADING)
    paths = any(line.family == "choice" for line in lines)
    program = Program(form, params, prologue, tuple(lines), rank, literal_shape, runs, paths)
    return Program(form, params, prologue, tuple(lines), rank, literal_shape,
                   tuple(run for sizes in runs for run in program.runs(sizes)), paths)


def _choice(draw, source: Var, variables: list[Var], name: str) -> Made:
    """`name = A if p else B`: two layouts of one shape that join. B is an earlier variable
    of A's shape and dtype where there is one, else A made contiguous (as a fused kernel's
    output on one device and the math path's on another)."""
    same = [v for v in variables if v.shape == source.shape and v.dtype == source.dtype
            and v.name != source.name]
    other = draw(st.sampled_from(same)).name if same and draw(st.booleans()) else \
        f"{source.name}.contiguous()"
    first, second = (source.name, other) if draw(st.booleans()) else (other, source.name)
    return Made(name, f"{first} if p else {second}",
                Var(name, source.shape, "choice", source.dtype))


def _sink(draw, var: Var, k: int, names: tuple[str, ...] = ()) -> Line:
    kind = draw(st.sampled_from(["view", "view", "dtype_view", "probe", "write"]))
    if kind == "view":
        target = lead.view_target(draw, var) if lead.has_lead(var) else view_target(draw, var)
        read = f"{var.name}.view({', '.join(target)})"
    elif kind == "dtype_view":
        read = f"{var.name}.view(torch.{draw(st.sampled_from(DTYPES))})"
    elif kind == "write":
        read = f"{var.name}.add_(1)"
    else:
        read = f"{var.name}.data_ptr()"
    guard = guard_of(draw, var, names) if draw(st.integers(0, 3)) == 0 else ""
    text = f"s{k} = {read} if {guard} else None" if guard else f"s{k} = {read}"
    return Line(text, kind, var.family, var.name, guard=guard)


def guard_of(draw, var: Var, names: tuple[str, ...]) -> str:
    """A condition on `var` or on a size name: its contiguity, a size against 1 (a dim of
    `var`, or a name the prologue binds), its rank against one near its own."""
    rank = len(var.shape)
    choice = draw(st.sampled_from(["contiguous", "size", "size", "name", "rank"]))
    if choice in ("size", "rank") and lead.has_lead(var):
        return lead.size_guard(draw, var)
    if choice == "size" and rank:
        dim = draw(st.integers(-rank, rank - 1))
        read = draw(st.sampled_from([f"{var.name}.shape[{dim}]", f"{var.name}.size({dim})"]))
        return f"{read} {draw(st.sampled_from(UNIT_TESTS))}"
    if choice == "name" and names:
        return f"{draw(st.sampled_from(names))} {draw(st.sampled_from(UNIT_TESTS))}"
    if choice == "rank":
        read = draw(st.sampled_from([f"{var.name}.ndim", f"{var.name}.dim()",
                                     f"len({var.name}.shape)"]))
        op = draw(st.sampled_from(["==", "!=", ">=", "<", ">", "<="]))
        return f"{read} {op} {max(rank + draw(st.integers(-1, 1)), 0)}"
    negate = draw(st.booleans())
    return f"{'not ' if negate else ''}{var.name}.is_contiguous()"


UNIT_TESTS = ("== 1", "!= 1", "> 1", "< 2", ">= 2", "<= 1")


def environment(program: Program, sizes: tuple[int, ...]) -> dict:
    """The arguments of `f` for one run (contiguous inputs, as callers pass): the input
    sizes, and last the path `p` where the program has paths (`Program.runs`)."""
    import torch

    if program.paths:
        return dict(environment(evolve_paths(program), sizes[:-1]), p=bool(sizes[-1]))
    if program.form == "literal":
        return {}
    if program.form == "params":
        return dict(zip(program.params, sizes))
    return {"x": torch.randn(*sizes)}


def evolve_paths(program: Program) -> Program:
    """The program without its `p` (for the arguments of its sizes)."""
    return Program(program.form, program.params, program.prologue, program.lines,
                   program.input_rank, program.literal_shape, program.assignments, False)
