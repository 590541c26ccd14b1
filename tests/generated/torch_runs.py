"""The torch side of the oracle (tests/generated/oracle.py): a generated program run under
torch at each size assignment (`run_torch`: what each sink did, and of which kind its tensor
was), and a finding's witness run at the input sizes that give the values it names
(`witness_sizes`, `wrong_witness`): there the view must raise its layout error, the probed
tensor be non-contiguous, the in-place write raise its overlap error. A name the witness gives
any size from 2 (a size an op made) holds at every input that gives it 2 or more."""
from __future__ import annotations

import itertools
import math
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Optional

import torch

from tests.generated.programs import Line, Program, environment

if TYPE_CHECKING:
    from tests.generated.oracle import Verdict

NAMESPACE = {"torch": torch, "F": torch.nn.functional}
VIEW_ERRORS = ("view size is not compatible", "must be 1 to view")
WRITE_ERRORS = ("more than one element of the written-to tensor refers to a single memory",)


@dataclass
@dataclass
class Observed:
    """What torch did at one sink, per valid assignment."""

    raised: list[bool] = field(default_factory=list)  # view sinks
    kinds: list[str] = field(default_factory=list)  # probes: contiguous/permuted/strided/...
    generic: Optional[int] = None  # the index of the generic assignment's observation


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
    """What the sink did: (the view raised its layout error, the kind of its tensor), or None
    where it did not run (its guard failed) or its view does not fit the sizes."""
    if line.guard and not eval(line.guard, env):
        return None
    tensor = env[line.target]
    kind = torch_kind(tensor)
    if line.kind == "probe":
        return False, kind
    try:
        exec(compile(line.text, "<gen>", "exec"), env)
    except RuntimeError as error:
        if any(m in str(error) for m in (WRITE_ERRORS if line.kind == "write" else
                                          VIEW_ERRORS)):
            return True, kind
        return None  # a shape or size error: the target does not fit these sizes
    return False, kind


def _input_names(program: Program) -> list[list[str]]:
    """The names the code gives each input size: a size parameter, or `x.size(i)` and the
    name the prologue binds it to."""
    if program.form == "params":
        return [[p] for p in program.params]
    names = [[f"x.size({i})"] for i in range(program.input_rank)]
    for statement in program.prologue:
        target, _, value = statement.partition(" = ")
        if value == "x.shape":
            unpacked = [t.strip() for t in target.split(",") if t.strip()]
            starred = next((i for i, t in enumerate(unpacked) if t.startswith("*")), None)
            for i, name in enumerate(unpacked):
                if starred is not None and i >= starred:  # after the star: from the back
                    i -= len(unpacked) - program.input_rank
                if not name.startswith("*"):
                    names[i].append(name)
        elif value.startswith("x.shape[-") and value.endswith(":]"):  # the last dims
            unpacked = [t.strip() for t in target.split(",") if t.strip()]
            for i, name in enumerate(unpacked):
                names[i - len(unpacked) + program.input_rank].append(name)
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
        picked = list(itertools.product(*choices))
    else:
        picked = _sparse(choices)
        for i in range(CANDIDATES):
            index, sizes = i * 7919 % total, []
            for choice in reversed(choices):
                index, digit = divmod(index, len(choice))
                sizes.append(choice[digit])
            picked.append(tuple(reversed(sizes)))
    return [run for sizes in picked for run in program.runs(sizes)]  # down every path


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


def witness_holds(program: Program, v: Verdict, index: int) -> bool:
    """Does torch fail where the finding's witness says, at input sizes that give every size
    it names (at some rank, where the code does not show x's)? A finding so shown is true,
    whatever the sizes tried by `run_torch` showed."""
    return any(bool(witness_sizes(ranked, _chosen(v), index)) and
               _wrong_at_rank(ranked, v, index) is None for ranked in at_ranks(program))


RANKS = range(1, 5)  # the ranks an input of unknown rank is tried at


def at_ranks(program: Program) -> list[Program]:
    """The program, or where the code never shows the input's rank (`opaque`, `lead`), the
    program with an input of each rank in RANKS (of each number of leading dims in LEADS): a
    witness may name sizes at a rank other than the one drawn (the least the ops allow)."""
    if program.form == "lead":
        named = program.input_rank - LEADS.stop + 1  # the generic run's rank has the most
        return [replace(program, input_rank=named + lead) for lead in LEADS]
    if program.form != "opaque":
        return [program]
    return [replace(program, input_rank=rank) for rank in RANKS]


LEADS = range(0, 3)  # the numbers of leading dims a `lead` program is tried at


def wrong_witness(program: Program, v: Verdict, index: int) -> Optional[str]:
    """`_wrong_at_rank` at the ranks `at_ranks` gives: None where the witness holds at one
    of them, else what torch did at the rank drawn."""
    wrong = [_wrong_at_rank(ranked, v, index) for ranked in at_ranks(program)]
    if any(w is None and witness_sizes(ranked, _chosen(v), index)
           for w, ranked in zip(wrong, at_ranks(program))):
        return None
    drawn = next(w for w, ranked in zip(wrong, at_ranks(program))
                 if ranked.input_rank == program.input_rank)
    return drawn if drawn is not None or program.form not in ("opaque", "lead") else \
        f"witness {v.witness}: no input of the ranks tried gives it"


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
        env = dict(NAMESPACE, **environment(program, program.runs(sizes)[0]))
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


def _wrong_at_rank(program: Program, v: Verdict, index: int) -> Optional[str]:
    """Run the program's ops up to the sink at each input assignment the witness allows; at
    one that gives every size the witness names its value, the sink must fail (the view
    raises its layout error, the probed tensor is not contiguous, the write raises its
    overlap error). What torch did instead, or
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
        sink = program.lines[index]
        try:
            holds = not sink.guard or eval(sink.guard, env)
        except IndexError:
            continue  # the guard reads a dim these sizes do not have: the line raises there
        if not holds:
            reached = f"at sizes {sizes} the sink's guard `{sink.guard}` does not hold"
            continue
        result = _sink(sink, env)
        if result is None:
            reached = f"at sizes {sizes} the view raises another error"
            continue
        raised, kind = result
        failed = kind != "contiguous" if v.sink.kind == "probe" else raised
        if failed:
            return None
        reached = f"at sizes {sizes} the tensor is contiguous" if v.sink.kind == "probe" \
            else f"at sizes {sizes} the {'write' if v.sink.kind == 'write' else 'view'} does " \
            f"not raise"
    return f"witness {v.witness}: " + (reached or "no input sizes give the sizes it names")
