"""The verdicts of benchmarks/realcode_judged.json hold against the current linter.

Skipped unless the pinned corpus of benchmarks/realcode.py is downloaded (run the benchmark once;
`CONTIGLINT_REALCODE_DIR` points elsewhere). Every rule runs, preview rules too, in the mode the
finding was judged in: a line judged true must stay reported, and a line judged false must stay
quiet when its rule runs by default. A preview rule (opt-in because its measured precision is
below the policy) may still report lines judged false: they are what its measured precision
counts; so may `--strict`, whose precision on a judged sample is measured, not floored. Only
the files that hold judged lines are linted.
"""
from __future__ import annotations

import importlib.util
import json
from collections import defaultdict
from pathlib import Path

import pytest

from contiglint.rules import precision

ROOT = Path(__file__).resolve().parents[1]
spec = importlib.util.spec_from_file_location("realcode", ROOT / "benchmarks" / "realcode.py")
realcode = importlib.util.module_from_spec(spec)
spec.loader.exec_module(realcode)

CACHE = realcode.default_cache()
JUDGED = json.loads(realcode.JUDGED.read_text())
TREES = {name: realcode.tree_of(CACHE, name) for name in realcode.PINNED}
DOWNLOADED = all((tree / ".complete").exists() for tree in TREES.values())


def test_judged_entries_are_well_formed():
    keys = [realcode.key(entry) for entry in JUDGED]
    assert len(keys) == len(set(keys)), "one verdict per key"
    for entry in JUDGED:
        assert entry["verdict"] in ("true", "false", "unsure"), entry
        assert entry["mode"] in ("default", "strict"), entry
        assert entry["why"].strip() and "\n" not in entry["why"], entry
        assert entry["package"] in realcode.PINNED, entry
        assert entry["version"] == realcode.PINNED[entry["package"]], entry
        if "repro" in entry:
            assert (ROOT / entry["repro"]).is_file(), entry


def test_recorded_precision_matches_the_policy():
    """What the rules' documentation reads is the policy applied to the recorded numbers."""
    from contiglint.rules import all_rules

    for rule in all_rules():
        m = precision.measured(rule.code)
        if rule.opt_in and not rule.preview:  # opt-in by design (CTG113): numbers only
            assert not m.judged or "Opt-in by design" in rule.documentation(), rule.code
            continue
        below = m.judged > 0 and (m.true / m.judged < precision.THRESHOLD or m.judged < m.findings)
        assert rule.preview == below, rule.code
        if rule.preview:
            assert rule.opt_in and "preview rule" in rule.documentation()


@pytest.mark.skipif(not DOWNLOADED, reason="real-code corpus not downloaded "
                    "(python benchmarks/realcode.py)")
@pytest.mark.parametrize("mode", ["default", "strict"])
def test_verdicts_hold(mode):
    from contiglint.rules import rule_by_code

    entries = [e for e in JUDGED if e["mode"] == mode]
    files = sorted({TREES[e["package"]] / e["path"] for e in entries})
    found = realcode.lint(CACHE, list(TREES.values()), mode == "strict", 2, files)
    reported = {realcode.key(f) for f in found}
    wrong = defaultdict(list)
    for entry in entries:
        flagged = realcode.key(entry) in reported
        quiet_expected = mode == "default" and not rule_by_code(entry["code"]).opt_in
        if entry["verdict"] == "false" and flagged and quiet_expected:
            wrong["judged false, still reported"].append(realcode.key(entry))
        if entry["verdict"] == "true" and not flagged and "missed" not in entry:
            wrong["judged true, no longer reported"].append(realcode.key(entry))
        if "missed" in entry and flagged:  # a documented miss that is found again: say so
            wrong["marked missed, reported again"].append(realcode.key(entry))
    assert not wrong, json.dumps(wrong, indent=1)


def test_rule_command_shows_the_measured_precision_and_date(tmp_path):
    from contiglint.rules import all_rules
    from tests.clitools import contiglint

    for rule in all_rules():
        shown = contiglint("rule", rule.code, cwd=tmp_path)
        assert shown.returncode == 0, shown.stderr
        m = precision.measured(rule.code)
        assert m.date and m.date in shown.stdout
        if m.judged:
            assert f"measured precision {m.precision:.0%}" in shown.stdout
            assert f"{m.true} true of {m.judged} judged" in shown.stdout
        assert ("preview: opt-in" in shown.stdout) == rule.preview
    listed = contiglint("rules", cwd=tmp_path).stdout
    for rule in all_rules():
        line = next(text for text in listed.splitlines() if text.startswith(rule.code))
        assert line.endswith("(preview, opt-in)") == rule.preview
