"""Measured precision of each rule on real code, and the policy that decides which rules run by
default.

The numbers live in `precision.json` next to this module, written by
`python benchmarks/realcode.py --record` from the verdicts in `benchmarks/realcode_judged.json`
(every finding of the rule on a pinned corpus of PyTorch packages, judged true, false or unsure
by running the flagged path under torch). A rule runs by default only when its measured
precision, true / judged with unsure counted against it, is at least `THRESHOLD` over at least
`MIN_JUDGED` judged findings (or over all of them when it had fewer). A rule below that is a
*preview* rule: opt-in, enabled only by its full code (`--extend-select CTG104`). A rule with no
finding on the corpus keeps its design default; its documentation says it was not measured.
"""
from __future__ import annotations

import json
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Optional

THRESHOLD = 0.90
MIN_JUDGED = 10
DATA = Path(__file__).with_name("precision.json")


@dataclass(frozen=True)
class Measured:
    code: str
    findings: int
    true: int
    false: int
    unsure: int
    date: str
    corpus: str

    @property
    def judged(self) -> int:
        return self.true + self.false + self.unsure

    @property
    def precision(self) -> Optional[float]:
        return self.true / self.judged if self.judged else None

    @property
    def preview(self) -> bool:
        """Below the policy: the rule is opt-in until its precision is measured high enough."""
        return self.judged > 0 and (self.precision < THRESHOLD or self.judged < self.findings)

    def describe(self) -> str:
        if not self.findings:
            return (f"not measured: no finding on the real-code corpus ({self.corpus}, "
                    f"{self.date})")
        if not self.judged:
            return (f"not measured: its {self.findings} findings on the real-code corpus are "
                    f"not judged yet ({self.corpus}, {self.date})")
        return (f"measured precision {self.precision:.0%} on real code ({self.true} true of "
                f"{self.judged} judged findings: {self.false} false, {self.unsure} unsure), "
                f"{self.corpus}, {self.date}")


@lru_cache(maxsize=None)
def _table() -> dict:
    return json.loads(DATA.read_text(encoding="utf-8"))


def measured(code: str) -> Measured:
    table = _table()
    counts = table["rules"].get(code, {})
    return Measured(code, counts.get("findings", 0), counts.get("true", 0),
                    counts.get("false", 0), counts.get("unsure", 0), table["date"],
                    table["corpus"])


def section(code: str) -> str:
    """The documentation paragraph on the rule's measured precision and what it implies."""
    m = measured(code)
    text = f"**Precision on real code.** {m.describe()}."
    if m.preview:
        text += (f" Below the {THRESHOLD:.0%} a rule needs to run by default, so this is a "
                 f"preview rule: opt-in, enabled by selecting its full code "
                 f"(`--extend-select {code}`).")
    return text
