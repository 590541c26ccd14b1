"""The precision policy and what the rules' documentation says of it, against the numbers that
`benchmarks/realcode.py --record` wrote (contiglint/rules/precision.json). The verdicts behind
those numbers are checked against the linter in tests/test_corpus_verdicts.py.
"""
from __future__ import annotations

import pytest

from contiglint.rules import precision


def test_recorded_precision_matches_the_policy():
    """What the rules' documentation reads is the policy applied to the recorded numbers."""
    from contiglint.rules import registry

    for entry in registry.entries():
        rule, m = entry.rule, precision.measured(entry.code)
        if entry.status == "opt-in":  # opt-in by design (CTG113): numbers only
            assert rule.opt_in, rule.code
            assert not m.judged or "Opt-in by design" in rule.documentation(), rule.code
            continue
        below = m.judged > 0 and (m.upper_bound < precision.THRESHOLD or m.judged < m.findings)
        assert entry.preview == below, rule.code
        if entry.preview:
            assert entry.opt_in and "preview rule" in rule.documentation()


@pytest.mark.parametrize("true, judged", [(5, 6), (0, 5), (1, 1), (49, 50), (2, 62), (3, 7)])
def test_the_upper_bound_is_the_wilson_interval_end(true, judged):
    """The bound is the larger root of Wilson's equation (p - u)^2 = z^2 u (1 - u) / n, and
    one failure in a handful of findings does not push it below the threshold."""
    upper, p, z = precision.wilson_upper(true, judged), true / judged, precision.Z
    assert p <= upper <= 1
    assert (p - upper) ** 2 == pytest.approx(z * z * upper * (1 - upper) / judged, abs=1e-12)
    if judged < 10 and judged - true <= 1:
        assert upper >= precision.THRESHOLD
    if true / judged < 0.5:
        assert upper < precision.THRESHOLD


def test_rule_command_shows_the_measured_precision_and_date(tmp_path):
    from contiglint.rules import all_rules, registry
    from tests.clitools import contiglint

    for rule in all_rules():
        shown = contiglint("rule", rule.code, cwd=tmp_path)
        assert shown.returncode == 0, shown.stderr
        m = precision.measured(rule.code)
        assert m.date and m.date in shown.stdout
        if m.judged:
            assert f"measured precision {m.precision:.0%}" in shown.stdout
            assert f"{m.true} true of {m.judged} judged" in shown.stdout
        assert ("preview: opt-in" in shown.stdout) == registry.is_preview(rule)
    listed = contiglint("rules", cwd=tmp_path).stdout
    for rule in all_rules():
        line = next(text for text in listed.splitlines() if text.startswith(rule.code))
        assert line.endswith("(preview: --preview)") == registry.is_preview(rule)
