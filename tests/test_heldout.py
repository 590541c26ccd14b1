"""The verdicts of the held-out corpora hold against the current linter.

The held-out corpus (`python benchmarks/realcode.py --corpus heldout`, pins in
benchmarks/heldout.json, verdicts in heldout_judged.json) and the fresh one (`--corpus fresh`,
fresh.json, fresh_judged.json) are real code outside the tuning set, each disjoint from the lists
before it. Their verdicts were MEASURED on the contiglint commit that the pins file names
("measured_on"): at that commit nobody had tuned on these packages. Changing rules or the engine while looking at these verdicts makes them tuning
data; quote them as such from then on, and measure on fresh packages for an untuned number.

Skipped unless the corpus is downloaded (`CONTIGLINT_HELDOUT_DIR` / `CONTIGLINT_FRESH_DIR`
point elsewhere than ~/.cache/contiglint/heldout / fresh). Every rule runs, preview rules too, in
the mode the finding was judged in: a line judged true must stay reported (a fix that loses it
loses recall on real code), and a line judged false must stay quiet when its rule runs by
default. A rule that is opt-in (by the precision policy or by design) may still report lines
judged false, and so may `--strict`: their precision is measured, not floored. Only the files
holding judged lines are linted.

The default rules still reported some lines judged false at the measured commit: those entries
carry `"open": true` (open false findings, not silenced). The test is a ratchet on them: an open
line that goes quiet fails until its mark is dropped, and any other judged-false line of a
default rule that gets reported fails.
"""
from __future__ import annotations

import importlib.util
import json
import re
from collections import defaultdict
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def load_corpus(name: str):
    """benchmarks/realcode.py pointed at one corpus (a module of its own per corpus)."""
    spec = importlib.util.spec_from_file_location(f"realcode_{name}",
                                                  ROOT / "benchmarks" / "realcode.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    module.use_corpus(name)
    return module


TUNING = set(load_corpus("tuning").PINNED)
CORPORA = {name: load_corpus(name) for name in ("heldout", "fresh")}
PINS = {name: json.loads(module.CORPORA[name][0].read_text()) for name, module in CORPORA.items()}
# Rules whose finding depends on another file (CTG114 reads the callee's contract where the
# callee is defined): a package holding such a verdict is linted whole, the others file by file.
CROSS_FILE = {"CTG114"}


def downloaded(realcode) -> bool:
    cache = realcode.default_cache()
    return all((realcode.tree_of(cache, name) / ".complete").exists() for name in realcode.PINNED)


@pytest.mark.parametrize("corpus", CORPORA)
def test_each_list_is_pinned_and_disjoint_from_the_earlier_ones(corpus):
    realcode = CORPORA[corpus]
    assert realcode.PINNED == PINS[corpus]["packages"]
    earlier = set(TUNING)
    for name in CORPORA:
        if name == corpus:
            break
        earlier |= set(CORPORA[name].PINNED)
    assert not set(realcode.PINNED) & earlier
    assert re.fullmatch(r"[0-9a-f]{7,40}", PINS[corpus]["measured_on"])
    for name, version in realcode.PINNED.items():
        assert re.fullmatch(r"[0-9]+(\.[0-9]+)+", version), (name, version)


@pytest.mark.parametrize("corpus", CORPORA)
def test_judged_entries_are_well_formed(corpus):
    realcode = CORPORA[corpus]
    judged = json.loads(realcode.JUDGED.read_text())
    keys = [realcode.key(entry) for entry in judged]
    assert len(keys) == len(set(keys)), "one verdict per key"
    for entry in judged:
        assert entry["verdict"] in ("true", "false", "unsure"), entry
        assert entry["mode"] in ("default", "strict"), entry
        assert entry["why"].strip() and "\n" not in entry["why"], entry
        assert entry["package"] in realcode.PINNED, entry
        assert entry["version"] == realcode.PINNED[entry["package"]], entry
        if "repro" in entry:
            assert (ROOT / entry["repro"]).is_file(), entry
        if "open" in entry:
            assert entry["open"] is True and entry["verdict"] == "false", entry
            assert entry["mode"] == "default", entry


@pytest.mark.parametrize("mode", ["default", "strict"])
@pytest.mark.parametrize("corpus", CORPORA)
def test_verdicts_hold(corpus, mode):
    from contiglint.rules import rule_by_code

    realcode = CORPORA[corpus]
    if not downloaded(realcode):
        pytest.skip(f"{corpus} corpus not downloaded "
                    f"(python benchmarks/realcode.py --corpus {corpus})")
    cache = realcode.default_cache()
    trees = {name: realcode.tree_of(cache, name) for name in realcode.PINNED}
    entries = [e for e in json.loads(realcode.JUDGED.read_text()) if e["mode"] == mode]
    if not entries:
        pytest.skip(f"no {mode}-mode verdicts on the {corpus} corpus")
    whole = {e["package"] for e in entries if e["code"] in CROSS_FILE}
    files = sorted({trees[e["package"]] / e["path"] for e in entries if e["package"] not in whole}
                   | {trees[name] for name in whole})
    found = realcode.lint(cache, list(trees.values()), mode == "strict", 2, files)
    reported = {realcode.key(f) for f in found}
    wrong = defaultdict(list)
    for entry in entries:
        flagged = realcode.key(entry) in reported
        rule = rule_by_code(entry["code"])
        quiet_expected = mode == "default" and not rule.opt_in  # a rule that runs by default
        if entry["verdict"] == "false" and quiet_expected and flagged != entry.get("open", False):
            wrong["judged false, reported" if flagged else
                  "marked open, now quiet: drop its mark"].append(realcode.key(entry))
        if entry["verdict"] == "true" and not flagged:
            wrong["judged true, no longer reported"].append(realcode.key(entry))
    assert not wrong, json.dumps(wrong, indent=1)
