"""The verifier's outcomes: one `Verdict` per finding, per missed line, per fixed-program case.

Torch-free, so reports can be built and read without importing torch.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

CONFIRMED = "confirmed"  # torch showed the hazard the finding claims
REFUTED = "refuted"  # every run contradicted the model's layout claim: a false positive
UNCONFIRMED = "unconfirmed"  # the layout was as claimed, the harm did not show on these inputs
NOT_RUN = "not run"  # no case reached the line (or the op cannot be observed here)
MISSED = "missed"  # torch showed a rule's hazard on a line without that finding
MISMATCH = "marker mismatch"  # `# expect:` markers and the engine disagree on a line
FIXED_OK = "fixed ok"  # the fixed program returned the same values, without layout errors
FIXED_DIFFERS = "fixed differs"  # it raised a layout error or returned something else
CASE_FAILED = "case failed"  # a case crashed or timed out (reported, not a disagreement)
ERROR = "error"  # the program could not be imported or run at all

OUTCOMES = (CONFIRMED, REFUTED, UNCONFIRMED, NOT_RUN, MISSED)
WITNESS_HOLDS = "witness holds"  # torch failed on a finding's witness as it says
WRONG_WITNESS = "wrong witness"  # torch did not fail on it: the model is wrong

FAILING = frozenset({REFUTED, MISSED, MISMATCH, FIXED_DIFFERS, ERROR, WRONG_WITNESS})


@dataclass(frozen=True)
class Verdict:
    path: str
    line: int  # 0: the whole file or a whole case
    code: str  # a rule code, "layout-error", or "fixed"
    outcome: str
    claim: str = ""  # what the static side said
    observed: str = ""  # what torch did
    case: Optional[str] = None

    @property
    def failing(self) -> bool:
        return self.outcome in FAILING

    def __str__(self) -> str:
        where = f"{self.path}:{self.line}" if self.line else self.path
        text = f"{where}: {self.code} {self.outcome}"
        if self.claim:
            text += f"\n    claim: {self.claim}"
        if self.observed:
            text += f"\n    torch: {self.observed}" + (f" ({self.case})" if self.case else "")
        return text

    def as_json(self) -> dict:
        return {"path": self.path, "line": self.line, "code": self.code,
                "outcome": self.outcome, "claim": self.claim, "observed": self.observed,
                "case": self.case}
