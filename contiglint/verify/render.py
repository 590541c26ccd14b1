"""The verifier's output: a per-rule table with every disagreement spelled out (text), or
every verdict and every observation (JSON)."""
from __future__ import annotations

import json
from collections import Counter

from contiglint.verify.verdicts import (CASE_FAILED, FIXED_DIFFERS, FIXED_OK, NOT_RUN,
                                        OUTCOMES, UNCONFIRMED, WITNESS_HOLDS, WRONG_WITNESS)
from contiglint.verify.verifier import Report

NOTES = (UNCONFIRMED, NOT_RUN, CASE_FAILED)


def device_line(report: Report) -> str:
    devices = ", ".join(sorted(report.devices)) or "none (nothing ran)"
    return f"device: {devices}"


def table(report: Report) -> list[str]:
    counts = Counter((v.code, v.outcome) for v in report.verdicts)
    codes = sorted({v.code for v in report.verdicts if v.outcome in OUTCOMES})
    rows = [("rule",) + OUTCOMES] + [(code,) + tuple(str(counts[code, o]) for o in OUTCOMES)
                                     for code in codes]
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    return ["  ".join(cell.ljust(width) for cell, width in zip(row, widths)).rstrip()
            for row in rows]


def text(report: Report) -> str:
    lines = [device_line(report), ""] + table(report)
    fixed = Counter(v.outcome for v in report.verdicts if v.code == "fixed")
    lines.append(f"\nfixed programs: {fixed[FIXED_OK]} case(s) ok, "
                 f"{fixed[FIXED_DIFFERS]} differ")
    witnesses = Counter(v.outcome for v in report.verdicts
                        if v.outcome in (WITNESS_HOLDS, WRONG_WITNESS))
    lines.append(f"witnesses replayed on torch: {witnesses[WITNESS_HOLDS]} hold, "
                 f"{witnesses[WRONG_WITNESS]} wrong")
    notes = [v for v in report.verdicts if v.outcome in NOTES]
    if notes:
        lines.append("\nnotes (not disagreements):")
        lines += [str(v) for v in notes]
    failing = report.failing
    if failing:
        lines.append(f"\n{len(failing)} disagreement(s) between the model and torch:")
        lines += [str(v) for v in failing]
    else:
        lines.append("\nno disagreement between the model and torch")
    return "\n".join(lines) + "\n"


def as_json(report: Report) -> str:
    summary: dict = {}
    for verdict in report.verdicts:
        per_code = summary.setdefault(verdict.code, {})
        per_code[verdict.outcome] = per_code.get(verdict.outcome, 0) + 1
    runs = []
    for path, run in report.runs.items():
        cases = []
        for case in run.cases:
            observations = []
            for index, obs in enumerate(case.observations):
                observations.append({**obs.as_json(), "while_tracing": index in case.tracing})
            cases.append({"case": case.case, "status": case.status, "error": case.error,
                          "seconds": round(case.seconds, 4),
                          "emulated_moves": [{"line": line, "op": op}
                                             for line, op in case.emulated],
                          "observations": observations,
                          "escapes": [obs.as_json() for obs in case.escapes]})
        runs.append({"path": path, "device": run.device, "error": run.error, "cases": cases})
    return json.dumps({"devices": sorted(report.devices), "failing": len(report.failing),
                       "summary": summary,
                       "verdicts": [v.as_json() for v in report.verdicts],
                       "runs": runs}, indent=2) + "\n"
