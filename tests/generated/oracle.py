"""Run a generated program under torch and through the engine, and compare at every sink.

torch: the body runs statement by statement for each size assignment; a sink records what
torch did (the view raised its layout error or not, the tensor was contiguous or not, and of
which kind). An assignment where an op statement fails is invalid for that program (a size the
op does not take) and is left out; a sink whose view does not fit the sizes (a shape error) is
not read for them, the other sinks are. Engine: the flow pass's abstract value at each sink
(`analyze_module`), read through the model's own verdicts (`view_verdict`, CTG101's dtype-view
checks), and the default-mode findings of `lint_source` (CTG101, CTG106) that a user sees.

What counts as a disagreement (the generic assignment has every size > 1; in a literal program
it is the program's own sizes):
- `view finding, torch never raises`: a default-mode CTG101 finding on a shape view that
  succeeded for every assignment (a false finding);
- `view ok, torch raises`: the model says the view succeeds (a definite "ok" on a tensor it
  knows) and torch raised for some assignment (a miss);
- `dtype-view finding, torch never raises` / `dtype-view ok, torch raises`: the same for
  `.view(dtype)` (only torch's stride error counts as raising);
- `claimed contiguous, torch not`: the value at a probe is known contiguous, torch's tensor is
  not, for some assignment;
- `claimed non-contiguous, torch contiguous` and `wrong kind` (permuted / strided / broadcast)
  at the generic assignment;
- `raw-memory finding, torch contiguous`: a default-mode CTG106 finding where torch's tensor
  is contiguous for every assignment;
- `wrong witness`: a default-mode finding (not already counted above) whose witness does not
  fail when the program runs at the witness's sizes (`witness_sizes`): its ops up to the sink
  run, and there the view must raise its layout error, the probed tensor be non-contiguous;
- `safe fix raises` / `safe fix changes values`: the program with the safe fixes applied
  behaves otherwise where the original ran (tests/generated/fixes.py).
An engine "unknown" is no disagreement; it counts against completeness (per op family).
torch is asked about the sizes tried (the generic ones, some with size-1 dims, one small
draw) and, for a finding with a witness, at input sizes that give the witness's values: a
finding that holds for other sizes than those tried (`x.chunk(2)[0][::2]` is strided for an
x of 8, not of 4) is true when torch fails at its witness, else it is counted as a false one.
"""
from __future__ import annotations

import ast
import itertools
import math
from dataclasses import dataclass, field
from typing import Optional

import torch

from contiglint.engine import lint_source
from contiglint.layout.flow.program import analyze_module
from contiglint.layout.model.values import Kind, Tensor
from contiglint.layout.model.view_verdict import view_verdict
from contiglint.rules.ctg101_view_on_noncontiguous import last_dim_unit_stride, source_itemsize
from contiglint.catalogue.dtypes import ELEMENT_SIZE
from contiglint.settings import Settings
from contiglint.source import SourceMap
from tests.generated.fixes import fix_disagreements
from tests.generated.programs import Line, Program, environment

DEFAULT = Settings(select=("CTG101", "CTG106"))
NAMESPACE = {"torch": torch, "F": torch.nn.functional}
VIEW_ERRORS = ("view size is not compatible", "must be 1 to view")


@dataclass
class Observed:
    """What torch did at one sink, per valid assignment."""

    raised: list[bool] = field(default_factory=list)  # view sinks
    kinds: list[str] = field(default_factory=list)  # probes: contiguous/permuted/strided/...
    generic: Optional[int] = None  # the index of the generic assignment's observation


@dataclass(frozen=True)
class Verdict:
    sink: Line
    line: int
    engine: str  # "ok", "raises", "can raise", "contiguous", a kind, or "unknown"
    finding: bool  # a default-mode finding of the sink's rule
    witness: Optional[dict] = None  # the finding's witness values (name -> size), if any
    any_size: frozenset = frozenset()  # names of the witness at which any size from 2 fails


@dataclass(frozen=True)
class Disagreement:
    name: str
    family: str
    program: Program
    line: int
    detail: str


def torch_kind(t: torch.Tensor) -> str:
    """contiguous, permuted (dense), strided (holes) or broadcast (overlapping), from the
    element offsets themselves (the tensors are small)."""
    if t.is_contiguous():
        return "contiguous"
    offsets = torch.zeros((), dtype=torch.long)
    for size, stride in zip(t.shape, t.stride()):
        offsets = (offsets.unsqueeze(-1) + torch.arange(size) * stride)
    offsets = offsets.flatten()
    if offsets.unique().numel() < offsets.numel():
        return "broadcast"
    return "permuted" if int(offsets.max() - offsets.min()) + 1 == t.numel() else "strided"


def run_torch(program: Program) -> dict[int, Observed]:
    """Observations keyed by the sink's index in `program.lines`."""
    compiled = [compile(s, "<gen>", "exec") for s in program.prologue]
    body = [(i, line, compile(line.text, "<gen>", "exec") if line.kind == "op" else None)
            for i, line in enumerate(program.lines)]
    observed = {i: Observed() for i, line in enumerate(program.lines) if line.kind != "op"}
    for run, sizes in enumerate(program.assignments):
        env = dict(NAMESPACE, **environment(program, sizes))
        results: dict[int, tuple] = {}
        try:
            for code in compiled:
                exec(code, env)
            for i, line, code in body:
                if code is not None:
                    exec(code, env)
                    continue
                results[i] = _sink(line, env)
        except (RuntimeError, ValueError, IndexError, TypeError):
            continue  # the program does not take these sizes
        for i, result in results.items():
            if result is None:
                continue  # this sink's view does not fit these sizes (the others are read)
            raised, kind = result
            obs = observed[i]
            if run == 0:
                obs.generic = len(obs.raised)
            obs.raised.append(raised)
            obs.kinds.append(kind)
    return observed


def _sink(line: Line, env: dict) -> Optional[tuple[bool, str]]:
    tensor = env[line.target]
    kind = torch_kind(tensor)
    if line.kind == "probe":
        return False, kind
    try:
        exec(compile(line.text, "<gen>", "exec"), env)
    except RuntimeError as error:
        if any(m in str(error) for m in VIEW_ERRORS):
            return True, kind
        return None  # a shape or size error: the target does not fit these sizes
    return False, kind


class EngineError(Exception):
    """The engine failed on a program (an internal error is a disagreement of its own)."""


def engine_verdicts(program: Program) -> list[Verdict]:
    source = program.source()
    tree = ast.parse(source)
    try:
        sinks = analyze_module(tree, SourceMap(source))
    except Exception as error:  # noqa: BLE001 - reported as a disagreement
        raise EngineError(f"{type(error).__name__}: {error}") from error
    by_line = {}
    for sink in sinks:
        if sink.kind in ("view", "raw_memory"):
            by_line.setdefault(sink.node.lineno, sink)
    linted = lint_source(source, "gen.py", DEFAULT).findings
    findings = {(f.code, f.line) for f in linted}
    witnesses = {(f.code, f.line): f.witness for f in linted if f.witness}
    out = []
    for i, line in enumerate(program.lines):
        if line.kind == "op":
            continue
        number = program.first_line + i
        sink = by_line.get(number)
        tensor = sink.tensor if sink is not None else None
        code = "CTG106" if line.kind == "probe" else "CTG101"
        witness = witnesses.get((code, number))
        out.append(Verdict(line, number, _verdict(line, sink, tensor),
                           (code, number) in findings,
                           dict(witness.values) if witness else None,
                           frozenset(witness.any_size) if witness else frozenset()))
    return out


def _verdict(line: Line, sink, tensor: Optional[Tensor]) -> str:
    if tensor is None:
        return "unknown"
    if line.kind == "probe":
        if tensor.maybe or tensor.kind is Kind.UNKNOWN:
            return "unknown"
        return tensor.kind.value
    if line.kind == "dtype_view":
        unit = last_dim_unit_stride(tensor)
        source = source_itemsize(sink.target, tensor)
        target = ELEMENT_SIZE.get(sink.dtype.split(".")[-1]) if sink.dtype else None
        if unit is True or (source is not None and source == target):
            return "ok"
        if unit is False and source is not None and target is not None:
            return "raises"
        return "unknown"
    if tensor.kind is Kind.UNKNOWN:
        return "unknown"
    verdict = view_verdict(tensor, list(sink.sizes) if sink.sizes is not None else None,
                           ast.unparse(sink.target))
    if verdict == "raises" and tensor.maybe:
        return "can raise"
    return {"merge": "can raise", "likely": "can raise"}.get(verdict, verdict)


def compare(program: Program) -> tuple[list[Verdict], list[Disagreement], bool]:
    """The engine's verdicts, the disagreements, and whether torch ran any assignment."""
    observed = run_torch(program)
    try:
        verdicts = engine_verdicts(program)
    except EngineError as error:
        ran = any(obs.raised for obs in observed.values())
        return [], [Disagreement("engine internal error", program.lines[-1].family, program,
                                 program.first_line, str(error))], ran
    index = {program.first_line + i: i for i in range(len(program.lines))}
    out: list[Disagreement] = []
    ran = False
    for v in verdicts:
        obs = observed[index[v.line]]
        if not obs.raised:
            continue
        ran = True
        name = _disagreement(v, obs)
        if name in FALSE_FINDINGS and v.witness is not None and \
                _witness_holds(program, v, index[v.line]):
            name = None  # torch fails at the witness's sizes, which the sizes tried missed
        if name:
            detail = f"engine {v.engine}, finding {v.finding}; torch raised {obs.raised} " \
                     f"kinds {obs.kinds}"
            out.append(Disagreement(name, v.sink.family, program, v.line, detail))
    flagged = {d.line for d in out}
    for v in verdicts:  # a false finding's witness is wrong too: counted once, above
        ran_here = bool(observed[index[v.line]].raised)  # else no size runs the ops before
        wrong = _wrong_witness(program, v, index[v.line]) \
            if v.witness is not None and v.line not in flagged and ran_here else None
        if wrong:
            out.append(Disagreement("wrong witness", v.sink.family, program, v.line, wrong))
    for name, detail in fix_disagreements(program):
        out.append(Disagreement(name, program.lines[-1].family, program, program.first_line,
                                detail))
    return verdicts, out, ran


def _input_names(program: Program) -> list[list[str]]:
    """The names the code gives each input size: a size parameter, or `x.size(i)` and the
    name the prologue binds it to."""
    if program.form == "params":
        return [[p] for p in program.params]
    names = [[f"x.size({i})"] for i in range(program.input_rank)]
    for statement in program.prologue:
        target, _, value = statement.partition(" = ")
        if value == "x.shape":
            for i, name in enumerate(t.strip() for t in target.split(",") if t.strip()):
                names[i].append(name)
        elif value.startswith("x.size(") and value[7:-1].isdigit():
            names[int(value[7:-1])].append(target.strip())
    return names


# the input sizes tried for what a witness leaves open: 1 too, since a size the witness names
# may be one only inputs of size 1 give (`x.reshape(-1).size(0) == 2` at x of (2, 1, 1))
TRIED = tuple(range(1, 13))
CANDIDATES = 1500  # input assignments tried at most per witness


def witness_sizes(program: Program, values: dict, index: Optional[int] = None) \
        -> list[tuple[int, ...]]:
    """The input size assignments a witness allows: its values for the input sizes it names,
    and for those that a size it names only moves (`_moved_inputs`, with the ops before line
    `index`); sizes in TRIED for the others (a witness may name a size the code derives, such
    as `v0.size(0)` of a reshape, which some of these assignments give). Where there are more
    than CANDIDATES, those that leave all but two of the others at 1 (`_sparse`), then a spread
    of them over every input (a multiplicative walk through their
    indices), not the first ones, which vary only the last inputs. Empty for a literal
    program."""
    if program.form == "literal":
        return []
    groups = _input_names(program)
    fixed = {}
    if index is not None:
        for name, position in _moved_inputs(program, index, values).items():
            fixed.setdefault(position, values[name])
    choices = [[values[n]] if (n := next((n for n in group if n in values), None)) else
               [fixed[i]] if i in fixed else list(TRIED) for i, group in enumerate(groups)]
    total = math.prod(map(len, choices))
    if total <= CANDIDATES:
        return list(itertools.product(*choices))
    picked = _sparse(choices)
    for i in range(CANDIDATES):
        index, sizes = i * 7919 % total, []
        for choice in reversed(choices):
            index, digit = divmod(index, len(choice))
            sizes.append(choice[digit])
        picked.append(tuple(reversed(sizes)))
    return picked


def _sparse(choices: list[list[int]]) -> list[tuple[int, ...]]:
    """The assignments that give every free input 1 but at most two: where a witness names a
    size the code derives as a product of inputs (`x.reshape(-1).size(0) = 2`), few other
    assignments give it."""
    free = [i for i, choice in enumerate(choices) if len(choice) > 1 and 1 in choice]
    ones = [[1] if i in free else choice for i, choice in enumerate(choices)]
    picked: dict[tuple[int, ...], None] = {}
    for pair in itertools.combinations(free, min(2, len(free))):
        options = [choices[i] if i in pair else ones[i] for i in range(len(choices))]
        picked.update(dict.fromkeys(itertools.product(*options)))
    return list(picked)


FALSE_FINDINGS = ("view finding, torch never raises", "dtype-view finding, torch never raises",
                  "raw-memory finding, torch contiguous")


def _witness_holds(program: Program, v: Verdict, index: int) -> bool:
    """Does torch fail where the finding's witness says, at input sizes that give every size
    it names? A finding so shown is true, whatever the sizes tried by `run_torch` showed."""
    return bool(witness_sizes(program, _chosen(v), index)) and \
        _wrong_witness(program, v, index) is None


def _chosen(v: Verdict) -> dict:
    """The witness's values but those of the names at which any size from 2 fails."""
    return {name: value for name, value in v.witness.items() if name not in v.any_size}


PROBES = ((2, 3, 5, 7, 11, 13), (13, 11, 7, 5, 3, 2))  # input sizes, all different


def _moved_inputs(program: Program, index: int, values: dict) -> dict[str, int]:
    """The names of a witness that are an input's size moved by the ops before line `index`
    (`v1.size(0)` of `x.transpose(0, -1)` is x's last size), each with that input's position:
    at two assignments of sizes all different, the name's value is the same input's size."""
    groups = _input_names(program)
    inputs = {n for group in groups for n in group}
    derived = [n for n in values if n not in inputs]
    ops = [line.text for line in program.lines[:index] if line.kind == "op"]
    found: Optional[dict[str, int]] = None
    for probe in PROBES:
        sizes = probe[:len(groups)]
        env = dict(NAMESPACE, **environment(program, sizes))
        try:
            for text in list(program.prologue) + ops:
                exec(compile(text, "<gen>", "exec"), env)
        except (RuntimeError, ValueError, IndexError, TypeError):
            return {}
        seen = {}
        for name in derived:
            try:
                value = eval(name, env)
            except (RuntimeError, ValueError, IndexError, TypeError, NameError, AttributeError):
                continue
            hits = [i for i, size in enumerate(sizes) if size == value]
            if len(hits) == 1:
                seen[name] = hits[0]
        found = seen if found is None else {n: i for n, i in seen.items() if found.get(n) == i}
    return found or {}


def _wrong_witness(program: Program, v: Verdict, index: int) -> Optional[str]:
    """Run the program's ops up to the sink at each input assignment the witness allows; at
    one that gives every size the witness names its value, the sink must fail (the view
    raises its layout error, the probed tensor is not contiguous). What torch did instead, or
    None. Other sinks are skipped: one that raises does not stop this one."""
    candidates = witness_sizes(program, _chosen(v), index)
    if not candidates:
        return None
    inputs = {n for group in _input_names(program) for n in group}
    derived = {n: value for n, value in _chosen(v).items() if n not in inputs}
    ops = [line.text for line in program.lines[:index] if line.kind == "op"]
    steps = [compile(text, "<gen>", "exec") for text in list(program.prologue) + ops]
    reached = None
    for sizes in candidates:
        env = dict(NAMESPACE, **environment(program, sizes))
        try:
            for step in steps:
                exec(step, env)
            if any(eval(name, env) != value for name, value in derived.items()) or \
                    any(eval(name, env) < 2 for name in v.any_size):
                continue  # not the state the witness names
        except (RuntimeError, ValueError, IndexError, TypeError, NameError):
            continue
        result = _sink(program.lines[index], env)
        if result is None:
            reached = f"at sizes {sizes} the view raises another error"
            continue
        raised, kind = result
        failed = kind != "contiguous" if v.sink.kind == "probe" else raised
        if failed:
            return None
        reached = f"at sizes {sizes} the tensor is contiguous" if v.sink.kind == "probe" \
            else f"at sizes {sizes} the view does not raise"
    return f"witness {v.witness}: " + (reached or "no input sizes give the sizes it names")


def _disagreement(v: Verdict, obs: Observed) -> Optional[str]:
    kind = v.sink.kind
    generic = obs.kinds[obs.generic] if obs.generic is not None else None
    if kind in ("view", "dtype_view"):
        prefix = "view" if kind == "view" else "dtype-view"
        if v.finding and not any(obs.raised):
            return f"{prefix} finding, torch never raises"
        if v.engine == "ok" and any(obs.raised):
            return f"{prefix} ok, torch raises"
        return None
    if v.finding and all(k == "contiguous" for k in obs.kinds):
        return "raw-memory finding, torch contiguous"
    if v.engine == "contiguous" and any(k != "contiguous" for k in obs.kinds):
        return "claimed contiguous, torch not"
    if v.engine in ("permuted", "strided", "broadcast") and generic is not None:
        if generic == "contiguous":
            return "claimed non-contiguous, torch contiguous"
        if generic != v.engine:
            return "wrong kind"
    return None
