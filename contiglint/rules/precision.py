"""Measured precision of each rule on real code, and the policy that decides which rules run by
default.

The numbers live in `precision.json` next to this module, written by
`python benchmarks/realcode.py --record [--corpus heldout|fresh|blind]` from the verdicts in
`benchmarks/realcode_judged.json`, `heldout_judged.json`, `fresh_judged.json` and
`blind_judged.json`: every default-mode finding of the rule on four pinned corpora of PyTorch
packages, judged true, false or unsure by running the flagged path under torch. The *tuning*
corpus is the code the rules were tuned on; the *held-out*, *fresh* and *blind* corpora are code
that was measured before anyone tuned on it. All are real code, so the policy reads them
together.

A rule is a *preview* rule when its findings show that it is not precise enough to run by
default: when even the upper end of the 95% Wilson score interval of its precision (true /
judged, unsure counted against it) is below `THRESHOLD`, or while some of its findings are not
judged. A handful of findings cannot show that either way (one unsure finding of six leaves the
interval at 44-97%): such a rule runs by default on the strength of its model, whose default
findings carry witnesses (sizes under which torch fails). A preview rule is opt-in, enabled by
`--preview` (`preview = true`) or by its full code (`--extend-select CTG104`). A rule with no
finding on any corpus keeps its design default; its documentation says it was not measured.
"""
from __future__ import annotations

import json
import math
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Optional

THRESHOLD = 0.90
Z = 1.96  # the normal quantile of a two-sided 95% interval
DATA = Path(__file__).with_name("precision.json")


@dataclass(frozen=True)
class Counts:
    """One corpus's verdicts on one rule's findings."""
    findings: int = 0
    true: int = 0
    false: int = 0
    unsure: int = 0

    @property
    def judged(self) -> int:
        return self.true + self.false + self.unsure


@dataclass(frozen=True)
class Measured:
    """One rule's verdicts on every corpus; the totals the policy reads are their sums."""
    code: str
    date: str
    corpus: str
    per_corpus: tuple[tuple[str, Counts], ...] = ()

    def _total(self, name: str) -> int:
        return sum(getattr(counts, name) for _, counts in self.per_corpus)

    findings = property(lambda self: self._total("findings"))
    true = property(lambda self: self._total("true"))
    false = property(lambda self: self._total("false"))
    unsure = property(lambda self: self._total("unsure"))

    @property
    def judged(self) -> int:
        return self.true + self.false + self.unsure

    @property
    def precision(self) -> Optional[float]:
        return self.true / self.judged if self.judged else None

    @property
    def upper_bound(self) -> Optional[float]:
        """The upper end of the 95% Wilson score interval of the precision."""
        return wilson_upper(self.true, self.judged) if self.judged else None

    @property
    def preview(self) -> bool:
        """Shown below the policy: the rule is opt-in until its findings say otherwise."""
        return self.judged > 0 and (self.upper_bound < THRESHOLD or self.judged < self.findings)

    def describe(self) -> str:
        if not self.findings:
            return (f"not measured: no finding on the real-code corpora ({self.corpus}, "
                    f"{self.date})")
        if not self.judged:
            return (f"not measured: its {self.findings} findings on the real-code corpora are "
                    f"not judged yet ({self.corpus}, {self.date})")
        parts = "; ".join(f"{name} {c.true} of {c.judged}" for name, c in self.per_corpus
                          if c.findings)
        return (f"measured precision {self.precision:.0%} on real code, at most "
                f"{self.upper_bound:.0%} by its 95% interval ({self.true} true of "
                f"{self.judged} judged findings: {self.false} false, {self.unsure} unsure; "
                f"{parts}), {self.corpus}, {self.date}")


CORPORA = ("tuning", "held-out", "fresh", "blind")


def wilson_upper(successes: int, trials: int, z: float = Z) -> float:
    """The upper end of the Wilson score interval of a proportion (Wilson, 1927)."""
    p = successes / trials
    centre = p + z * z / (2 * trials)
    spread = z * math.sqrt(p * (1 - p) / trials + z * z / (4 * trials * trials))
    return (centre + spread) / (1 + z * z / trials)


@lru_cache(maxsize=None)
def _table() -> dict:
    return json.loads(DATA.read_text(encoding="utf-8"))


def measured(code: str) -> Measured:
    corpora = _table()["corpora"]
    per_corpus = []
    for name in CORPORA:
        counts = corpora.get(name, {}).get("rules", {}).get(code, {})
        per_corpus.append((name, Counts(*(counts.get(k, 0) for k in
                                          ("findings", "true", "false", "unsure")))))
    date = max((corpora[name]["date"] for name in CORPORA if name in corpora), default="")
    names = [corpora[name]["corpus"] for name in CORPORA if name in corpora]
    described = " and ".join(filter(None, [", ".join(names[:-1]), names[-1]])) if names else ""
    return Measured(code, date, described, tuple(per_corpus))


def section(code: str, by_design: bool = False) -> str:
    """The documentation paragraph on the rule's measured precision and what it implies (for
    a rule that is opt-in by design, only the numbers)."""
    m = measured(code)
    text = f"**Precision on real code.** {m.describe()}."
    if by_design:
        text += " Opt-in by design, whatever its precision."
    elif m.preview:
        below = (f"Below the {THRESHOLD:.0%} a rule needs to run by default"
                 if m.upper_bound < THRESHOLD else "Not all its findings are judged yet")
        text += (f" {below}, so this is a preview rule: opt-in, run by `--preview` (`preview = "
                 f"true`) with a selection that names it, or by selecting its full code "
                 f"(`--extend-select {code}`).")
    elif m.judged and m.precision < THRESHOLD:
        text += (f" Too few findings to show it below the {THRESHOLD:.0%} a rule needs to run "
                 f"by default, so it runs by default.")
    return text
