"""Counting what the generated programs showed: disagreements by class (one program each, to be
shrunk), and completeness per op family (the share of sinks with a definite engine verdict)."""
from __future__ import annotations

from collections import Counter
import re
from dataclasses import dataclass, field, replace
from typing import Optional

from hypothesis import HealthCheck, Phase, find, settings
from hypothesis.errors import NoSuchExample

from tests.generated.oracle import Disagreement, compare
from tests.generated.programs import FORMS, Program, programs

NAME = re.compile(r"\bv\d+\b")


@dataclass
class Tally:
    programs: int = 0
    ran: int = 0  # programs torch ran for at least one size assignment
    disagreements: Counter = field(default_factory=Counter)
    examples: dict[str, Disagreement] = field(default_factory=dict)
    sinks: Counter = field(default_factory=Counter)  # (family, sink kind) -> sinks torch ran
    definite: Counter = field(default_factory=Counter)  # ... with a definite engine verdict

    def add(self, program: Program) -> list[Disagreement]:
        verdicts, found, ran = compare(program)
        self.programs += 1
        self.ran += ran
        if not ran:
            return found
        for v in verdicts:
            key = (v.sink.family, v.sink.kind)
            self.sinks[key] += 1
            self.definite[key] += v.engine != "unknown"
        for d in found:
            self.disagreements[d.name] += 1
            best = self.examples.get(d.name)
            if best is None or len(str(d.program)) < len(str(best.program)):
                self.examples[d.name] = d
        return found

    def merge(self, other: "Tally") -> None:
        """Add another tally's counts (a batch run elsewhere); keep the shorter example."""
        self.programs += other.programs
        self.ran += other.ran
        self.disagreements.update(other.disagreements)
        self.sinks.update(other.sinks)
        self.definite.update(other.definite)
        for name, example in other.examples.items():
            best = self.examples.get(name)
            if best is None or len(str(example.program)) < len(str(best.program)):
                self.examples[name] = example

    def completeness(self) -> list[tuple[str, int, float]]:
        """(family, sinks, share definite), per op family over all sink kinds."""
        families: Counter = Counter()
        definite: Counter = Counter()
        for (family, _), n in self.sinks.items():
            families[family] += n
            definite[family] += self.definite[(family, _)]
        return [(f, n, definite[f] / n) for f, n in sorted(families.items())]

    def report(self) -> str:
        lines = [f"programs: {self.programs} generated, {self.ran} run by torch for at least "
                 f"one size assignment; sinks compared: {sum(self.sinks.values())}"]
        lines.append("disagreements by class:" if self.disagreements else "disagreements: none")
        for name, n in self.disagreements.most_common():
            lines.append(f"  {n:7d}  {name}")
        lines.append("completeness per op family (sinks with a definite verdict):")
        for family, n, share in self.completeness():
            kinds = ", ".join(
                f"{kind} {self.definite[(family, kind)]}/{self.sinks[(family, kind)]}"
                for (fam, kind) in sorted(self.sinks) if fam == family)
            lines.append(f"  {family:14s} {share:6.1%} of {n:6d}  ({kinds})")
        return "\n".join(lines)


def shrink(name: str, start: Optional[Program] = None, max_examples: int = 2000,
           forms: tuple[str, ...] = FORMS) -> Optional[Disagreement]:
    """A minimal program that shows disagreement `name`, found and shrunk by Hypothesis (the
    search starts afresh: from `start`, pruned, when the search finds none), then cut down to
    the statements its disagreeing sink depends on."""
    def shows(program: Program) -> bool:
        return any(d.name == name for d in compare(program)[1])

    try:
        found = find(programs(forms=forms), shows, settings=settings(
            max_examples=max_examples, database=None, deadline=None,
            phases=(Phase.generate, Phase.shrink), suppress_health_check=list(HealthCheck)))
    except NoSuchExample:
        if start is None:
            return None
        found = start
    first = next(d for d in compare(found)[1] if d.name == name)
    pruned = cone(found, first.line - found.first_line)
    return next((d for d in compare(pruned)[1] if d.name == name), first)


def cone(program: Program, sink: int) -> Program:
    """The program cut down to sink number `sink` of its lines and the statements it reads."""
    lines = program.lines
    needed = {sink}
    names = set(NAME.findall(lines[sink].text.split("=", 1)[1]))
    for i in range(sink - 1, -1, -1):
        line = lines[i]
        made = line.text.split("=", 1)[0].strip()
        if line.kind == "op" and made in names:
            needed.add(i)
            names |= set(NAME.findall(line.text.split("=", 1)[1]))
    return replace(program, lines=tuple(line for i, line in enumerate(lines) if i in needed))
