"""Run a generated program under torch and through the engine, and compare at every sink.

torch: the body runs statement by statement for each size assignment; a sink records what
torch did (the view raised its layout error or not, the tensor was contiguous or not, and of
which kind). An assignment where an op statement fails is invalid for that program (a size the
op does not take) and is left out; a sink whose view does not fit the sizes (a shape error) is
not read for them, the other sinks are. Engine: the flow pass's abstract value at each sink
(`analyze_module`), read through the model's own verdicts (`view_verdict`, CTG101's dtype-view
checks), and the default-mode findings of `lint_source` (CTG101, CTG106, CTG108) that a user
sees.

What counts as a disagreement (the generic assignment has every size > 1; in a literal program
it is the program's own sizes):
- `view finding, torch never raises`: a default-mode CTG101 finding on a shape view that
  succeeded for every assignment (a false finding);
- `view ok, torch raises`: the model says the view succeeds (a definite "ok" on a tensor it
  knows) and torch raised for some assignment (a miss);
- `dtype-view finding, torch never raises` / `dtype-view ok, torch raises`: the same for
  `.view(dtype)` (only torch's stride error counts as raising);
- `in-place finding, torch never raises` / `in-place ok, torch raises`: the same for an
  in-place write (`.add_(1)`: a default-mode CTG108 finding; torch's error that elements of
  the written-to tensor share memory), where the model claims a layout without shared
  elements ("ok"; an expanded tensor it does not call "ok": whether it overlaps is CTG108's
  witness);
- `claimed contiguous, torch not`: the value at a probe is known contiguous, torch's tensor is
  not, for some assignment;
- `claimed non-contiguous, torch contiguous` and `wrong kind` (permuted / strided / broadcast)
  at the generic assignment;
- `raw-memory finding, torch contiguous`: a default-mode CTG106 finding where torch's tensor
  is contiguous for every assignment;
- `wrong witness`: a default-mode finding (not already counted above) whose witness does not
  fail when the program runs at the witness's sizes (tests/generated/torch_runs.py): its ops
  up to the sink run, and there the view must raise its layout error, the probed tensor be
  non-contiguous;
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
from dataclasses import dataclass
from typing import Optional

from contiglint.engine import lint_source
from contiglint.layout.flow.program import analyze_module
from contiglint.layout.model.values import Kind, Tensor
from contiglint.layout.model.view_verdict import view_verdict
from contiglint.layout.model.dtype_views import last_dim_unit_stride
from contiglint.rules.ctg101_view_on_noncontiguous import source_itemsize
from contiglint.catalogue.dtypes import ELEMENT_SIZE
from contiglint.settings import Settings
from contiglint.source import SourceMap
from tests.generated.fixes import fix_disagreements
from tests.generated.programs import Line, Program
from tests.generated.torch_runs import Observed, run_torch, witness_holds, wrong_witness

DEFAULT = Settings(select=("CTG101", "CTG106", "CTG108"))
CODES = {"view": "CTG101", "dtype_view": "CTG101", "probe": "CTG106", "write": "CTG108"}
SINK_KINDS = {"view": "view", "dtype_view": "view", "probe": "raw_memory", "write": "inplace"}


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
        if sink.kind in SINK_KINDS.values():
            by_line.setdefault((sink.node.lineno, sink.kind), sink)
    linted = lint_source(source, "gen.py", DEFAULT).findings
    findings = {(f.code, f.line) for f in linted}
    witnesses = {(f.code, f.line): f.witness for f in linted if f.witness}
    out = []
    for i, line in enumerate(program.lines):
        if line.kind == "op":
            continue
        number = program.first_line + i
        sink = by_line.get((number, SINK_KINDS[line.kind]))
        tensor = sink.tensor if sink is not None else None
        code = CODES[line.kind]
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
    if line.kind == "write":  # a layout without shared elements takes the write
        if tensor.maybe or tensor.kind in (Kind.UNKNOWN, Kind.BROADCAST):
            return "unknown"
        return "ok"
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


FALSE_FINDINGS = ("view finding, torch never raises", "dtype-view finding, torch never raises",
                  "in-place finding, torch never raises", "raw-memory finding, torch contiguous")


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
                witness_holds(program, v, index[v.line]):
            name = None  # torch fails at the witness's sizes, which the sizes tried missed
        if name:
            detail = f"engine {v.engine}, finding {v.finding}; torch raised {obs.raised} " \
                     f"kinds {obs.kinds}"
            out.append(Disagreement(name, v.sink.family, program, v.line, detail))
    flagged = {d.line for d in out}
    for v in verdicts:  # a false finding's witness is wrong too: counted once, above
        ran_here = bool(observed[index[v.line]].raised)  # else no size runs the ops before
        wrong = wrong_witness(program, v, index[v.line]) \
            if v.witness is not None and v.line not in flagged and ran_here else None
        if wrong:
            out.append(Disagreement("wrong witness", v.sink.family, program, v.line, wrong))
    for name, detail in fix_disagreements(program):
        out.append(Disagreement(name, program.lines[-1].family, program, program.first_line,
                                detail))
    return verdicts, out, ran


def _disagreement(v: Verdict, obs: Observed) -> Optional[str]:
    kind = v.sink.kind
    generic = obs.kinds[obs.generic] if obs.generic is not None else None
    if kind in ("view", "dtype_view", "write"):
        prefix = {"view": "view", "dtype_view": "dtype-view", "write": "in-place"}[kind]
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
