"""Programs written by hand for the model's exam: one per class of disagreement the generated
programs found, run under torch through the same oracle (tests/generated/oracle.py)."""
from __future__ import annotations

from contiglint.engine import lint_source
from contiglint.settings import Settings
from tests.generated.oracle import compare
from tests.generated.programs import Line, Program

SIZE3 = ("B = x.size(0)", "N = x.size(1)", "C = x.size(2)")  # x's sizes, named as code does


def program(form: str, prologue: tuple[str, ...], body: list[tuple[str, ...]],
            params: tuple[str, ...] = (), rank: int = 0, sizes=((),),
            literal_shape: tuple[int, ...] = (), paths: bool = False) -> Program:
    """A program written by hand: `body` holds (statement, kind, target) triples, or
    (statement, kind, target, guard) for a sink that runs under a condition. With `paths`,
    `f` takes a flag `p` its statements may choose by, and runs down both paths."""
    lines = tuple(Line(text, kind, "hand", target, guard=guard[0] if guard else "")
                  for text, kind, target, *guard in body)
    made = Program(form, params, prologue, lines, rank, literal_shape, tuple(sizes), paths)
    return Program(form, params, prologue, lines, rank, literal_shape,
                   tuple(run for s in sizes for run in made.runs(tuple(s))), paths)


def executed(source: str) -> dict:
    """The names a hand-written source defines, its functions ready to run under torch."""
    out: dict = {}
    exec(compile(source, "s.py", "exec"), out)
    return out


def view_findings(source: str) -> list:
    """CTG101's findings in a hand-written source."""
    return lint_source(source, "s.py", Settings(select=("CTG101",))).findings


def view_findings_by_function(source: str) -> dict:
    """CTG101's findings in a hand-written source of top-level functions, each at a
    `return ...view(...)` line, by the name of the function it is in."""
    owner, name = {}, None
    for number, text in enumerate(source.splitlines(), 1):
        if text.startswith("def "):
            name = text[4:text.index("(")]
        elif ".view(" in text and "return" in text:
            owner[number] = name
    return {owner[f.line]: f for f in view_findings(source) if f.line in owner}


def agreed(p: Program) -> list:
    """The engine's verdicts on `p`, none of which may disagree with torch."""
    verdicts, found, _ = compare(p)
    assert not found, [d.detail for d in found]
    return verdicts



def verdicts_of(p: Program) -> list[str]:
    verdicts, found, ran = compare(p)
    assert ran, f"torch ran no size assignment of\n{p}"
    assert not found, "\n".join(f"{d.name}: {d.detail}" for d in found)
    return [v.engine for v in verdicts]

