"""The fixture verifier: run every fixture program under torch and judge the static model.

`verify(paths)` finds the fixture programs (and their `.fixed.py` goldens), runs them all in
the worker pool, and returns a `Report`: one `Verdict` per finding, per missed line, per marker
disagreement and per fixed-program case, plus every run for the JSON output.
"""
from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Sequence

from contiglint.verify.compare import compare, static_findings
from contiglint.verify.fixed import compare_fixed
from contiglint.verify.markers import fixed_path, fixture_programs
from contiglint.verify.runner import run_programs
from contiglint.verify.verdicts import Verdict
from contiglint.verify.witnesses import witness_verdicts


@dataclass
class Report:
    verdicts: list[Verdict] = field(default_factory=list)
    runs: dict = field(default_factory=dict)  # path -> FileRun
    devices: set[str] = field(default_factory=set)

    @property
    def failing(self) -> list[Verdict]:
        return [v for v in self.verdicts if v.failing]


def display(path: Path) -> str:
    try:
        return os.path.relpath(path)
    except ValueError:  # another drive
        return str(path)


def unsafe_fix_lines(text: str, path: str) -> set[int]:
    """Lines where a fix that may change behaviour applies: the finding's and its edits'."""
    lines: set[int] = set()
    for finding in static_findings(text, path)[0]:
        if finding.fix is not None and finding.fix.safety == "unsafe":
            lines.add(finding.line)
            lines.update(edit.start.line for edit in finding.fix.edits)
    return lines


def unfixable_lines(golden: Path) -> set[int]:
    text = golden.read_text(encoding="utf-8")
    return {f.line for f in static_findings(text, str(golden))[0]
            if f.fix is None or not f.fix.offered}


def verify(paths: Sequence[str], device: str = "auto", jobs: int = 2,
           case_timeout: float = 60.0) -> Report:
    programs = list(fixture_programs(paths))
    goldens = {p: fixed_path(p) for p in programs if fixed_path(p).exists()}
    runs = run_programs([str(p) for p in programs] + [str(g) for g in goldens.values()],
                        device, jobs, case_timeout)
    report = Report(runs=runs, devices={r.device for r in runs.values() if r.device})
    for program in programs:
        text = program.read_text(encoding="utf-8")
        verdicts = compare(str(program), text, runs.get(str(program)))
        verdicts += witness_verdicts(str(program), static_findings(text, str(program))[0],
                                     "cuda" if "cuda" in report.devices else "cpu")
        if program in goldens:
            verdicts += compare_fixed(str(program), runs.get(str(program)),
                                      runs.get(str(goldens[program])),
                                      unsafe_fix_lines(text, str(program)),
                                      unfixable_lines(goldens[program]))
        shown = display(program)
        report.verdicts += [Verdict(shown, v.line, v.code, v.outcome, v.claim, v.observed,
                                    v.case) for v in verdicts]
    return report
