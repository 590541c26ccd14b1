"""Compare what the engine claims about a fixture with what torch did when it ran.

The static side is the engine's own findings (all rules selected, opt-in ones included), not
the `# expect:` markers: the verifier checks the model, and tests/test_fixtures.py already
checks the markers against the engine. Lines where the two disagree are reported as well.
"""
from __future__ import annotations

from collections import defaultdict
from typing import Iterable, Optional

from contiglint.engine import lint_source
from contiglint.findings import Finding
from contiglint.rules import all_rules
from contiglint.settings import Settings
from contiglint.verify.claims import ANY_LAYOUT_ERROR, CLAIMS, Claim, Evidence, describe
from contiglint.verify.op_kinds import SourceFacts
from contiglint.verify.markers import expectations
from contiglint.verify.records import CRASHED, TIMEOUT, CaseRun, FileRun
from contiglint.verify.verdicts import (CASE_FAILED, CONFIRMED, ERROR, MISMATCH, MISSED,
                                        NOT_RUN, REFUTED, UNCONFIRMED, Verdict)


def all_rules_settings() -> Settings:
    return Settings(select=tuple(rule.code for rule in all_rules()))


def static_findings(text: str, path: str) -> tuple[list[Finding], list[str]]:
    result = lint_source(text, path, all_rules_settings())
    return result.findings, [f"{e.path}:{e.line}: {e.message}" for e in result.errors]


LineObservations = dict[int, list[tuple[CaseRun, list]]]


def by_line(run: FileRun) -> LineObservations:
    """line -> [(case run, the direct observations and escapes made at that line)]."""
    lines: LineObservations = defaultdict(list)
    for case in run.cases:
        per_line: dict[int, list] = defaultdict(list)
        for obs in list(case.observations) + list(case.escapes):
            if obs.direct and obs.file == run.path:
                per_line[obs.line].append(obs)
        for line, observations in per_line.items():
            lines[line].append((case, observations))
    return lines


def by_caller(run: FileRun) -> LineObservations:
    """line -> [(case run, the observations made in functions called from that line)]."""
    lines: LineObservations = defaultdict(list)
    for case in run.cases:
        per_line: dict[int, list] = defaultdict(list)
        for obs in case.observations:
            if obs.file != run.path:
                continue
            for line in {site.line for site in obs.called_from if site.file == run.path}:
                per_line[line].append(obs)
        for line, observations in per_line.items():
            lines[line].append((case, observations))
    return lines


def gather(claim: Claim, entries: Iterable[tuple[CaseRun, list]],
           source: SourceFacts) -> list[Evidence]:
    return [evidence for case, observations in entries
            for evidence in claim.gather(observations, case, source)]


def evidence_text(evidence: Evidence) -> str:
    obs = evidence.observation
    text = f"{obs.op} on {describe(evidence.tensor)}"
    return text + (f"; {evidence.note}" if evidence.note else "")


def judge(path: str, finding: Finding, lines: LineObservations,
          source: SourceFacts, callees: Optional[LineObservations] = None) -> Verdict:
    claim = CLAIMS.get(finding.code)
    if claim is None:
        return Verdict(path, finding.line, finding.code, NOT_RUN, finding.message,
                       "the verifier has no runtime check for this rule")
    read = callees if claim.through_calls and callees is not None else lines
    evidence = gather(claim, read.get(finding.line, ()), source)
    if not evidence:
        return Verdict(path, finding.line, finding.code, NOT_RUN, finding.message,
                       f"no case reached this line with an op the check reads "
                       f"({claim.confirms})")
    shown = next((e for e in evidence if e.hazard), None)
    if shown is not None:
        return Verdict(path, finding.line, finding.code, CONFIRMED, finding.message,
                       evidence_text(shown), shown.case)
    outcome = REFUTED if all(e.contradicts for e in evidence) else UNCONFIRMED
    example = evidence[0] if outcome == REFUTED else \
        next(e for e in evidence if not e.contradicts)
    return Verdict(path, finding.line, finding.code, outcome, finding.message,
                   evidence_text(example) + f" [{len(evidence)} run(s); needed: "
                   f"{claim.confirms}]", example.case)


def misses(path: str, flagged: set[tuple[int, str]], lines: LineObservations,
           known: set[str], source: SourceFacts) -> list[Verdict]:
    found = []
    flagged_lines = {line for line, _ in flagged}
    for line in sorted(lines):
        missed_here = False
        for code, claim in CLAIMS.items():
            if not claim.misses or code not in known or (line, code) in flagged:
                continue
            shown = next((e for e in gather(claim, lines[line], source)
                          if e.hazard and e.missable), None)
            if shown is not None:
                missed_here = True
                found.append(Verdict(path, line, code, MISSED, "no finding on this line",
                                     evidence_text(shown), shown.case))
        if not missed_here and line not in flagged_lines:
            shown = next(iter(gather(ANY_LAYOUT_ERROR, lines[line], source)), None)
            if shown is not None:
                found.append(Verdict(path, line, ANY_LAYOUT_ERROR.code, MISSED,
                                     "no finding on this line", evidence_text(shown),
                                     shown.case))
    return found


def marker_mismatches(path: str, text: str, flagged: set[tuple[int, str]]) -> list[Verdict]:
    marked = expectations(text)
    found = [Verdict(path, line, code, MISMATCH, f"`# expect: {code}` on this line",
                     "the engine does not flag it") for line, code in sorted(marked - flagged)]
    found += [Verdict(path, line, code, MISMATCH, "the engine flags this line",
                      "no `# expect:` marker for it") for line, code in sorted(flagged - marked)]
    return found


def case_failures(run: FileRun) -> list[Verdict]:
    return [Verdict(run.path, 0, "case", CASE_FAILED, "", case.error or case.status, case.case)
            for case in run.cases if case.status in (CRASHED, TIMEOUT)]


def compare(path: str, text: str, run: Optional[FileRun]) -> list[Verdict]:
    findings, errors = static_findings(text, path)
    if errors:
        return [Verdict(path, 0, "engine", ERROR, "", "; ".join(errors))]
    flagged = {(f.line, f.code) for f in findings}
    verdicts = marker_mismatches(path, text, flagged)
    if run is None or run.error:
        return verdicts + [Verdict(path, 0, "run", ERROR, "",
                                   run.error if run else "the program was not run")]
    lines, callees, source = by_line(run), by_caller(run), SourceFacts.of(text)
    seen: set[tuple[int, str]] = set()
    for finding in findings:
        if (finding.line, finding.code) not in seen:
            seen.add((finding.line, finding.code))
            verdicts.append(judge(path, finding, lines, source, callees))
    known = {rule.code for rule in all_rules()}
    return verdicts + misses(path, flagged, lines, known, source) + case_failures(run)
