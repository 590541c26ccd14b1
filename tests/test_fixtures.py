"""Every fixture's findings equal its `# expect:` markers; every golden `.fixed.py` is what
fixing produces, has no fixable finding left, and fixing it again changes nothing."""
from __future__ import annotations

import pytest

from contiglint.engine import fix_source, lint_source
from contiglint.rules import all_rules
from contiglint.settings import Settings
from tests.fixture_format import expectations, fixed_path, fixture_files

ALL_RULES = Settings(select=tuple(rule.code for rule in all_rules()))
FIXTURES = fixture_files()


def ids(paths):
    return [f"{p.parent.name}/{p.name}" for p in paths]


def test_there_are_fixtures_for_every_rule():
    covered = {path.parent.name for path in FIXTURES}
    missing = {rule.code for rule in all_rules()} - covered
    assert not missing, f"rules without fixtures: {sorted(missing)}"


@pytest.mark.parametrize("path", FIXTURES, ids=ids(FIXTURES))
def test_findings_match_expectations(path):
    text = path.read_text(encoding="utf-8")
    result = lint_source(text, str(path), ALL_RULES)
    assert not result.errors, result.errors
    found = {(f.line, f.code) for f in result.findings}
    expected = expectations(text)
    messages = {(f.line, f.code): f.message for f in result.findings}
    assert found - expected == set(), f"unexpected: {[(k, messages[k]) for k in found - expected]}"
    assert expected - found == set(), f"missed: {sorted(expected - found)}"


WITH_GOLDEN = [p for p in FIXTURES if fixed_path(p).exists()]


@pytest.mark.parametrize("path", WITH_GOLDEN, ids=ids(WITH_GOLDEN))
def test_fix_output_matches_golden(path):
    text = path.read_text(encoding="utf-8")
    fixed = fix_source(text, str(path), ALL_RULES, unsafe=True)
    assert fixed.text == fixed_path(path).read_text(encoding="utf-8")
    remaining = lint_source(fixed.text, str(path), ALL_RULES).findings
    assert [f for f in remaining if f.fix] == []
    assert fix_source(fixed.text, str(path), ALL_RULES, unsafe=True).text == fixed.text
