"""The verdicts of every real-code corpus hold against the current linter.

`python benchmarks/realcode.py [--corpus heldout|fresh|blind]` measures four corpora of real
code: the tuning set pinned in realcode.py (verdicts in realcode_judged.json, the code the rules
were tuned on), the held-out list (heldout.json, heldout_judged.json), the fresh one (fresh.json,
fresh_judged.json) and the blind one (blind.json, blind_judged.json, judged by a session that
read none of contiglint's code), each later list disjoint from the ones before it. The later
corpora's verdicts were MEASURED on the contiglint commit that their pins file names
("measured_on"): at that commit nobody had tuned on these packages. Changing rules or the engine
while looking at them makes them tuning data; quote them as such from then on, and measure on
fresh packages for an untuned number.

A corpus's verdicts are checked only where it is downloaded (`CONTIGLINT_REALCODE_DIR`,
`CONTIGLINT_HELDOUT_DIR`, `CONTIGLINT_FRESH_DIR` point elsewhere than ~/.cache/contiglint/...),
and then only with `--run-slow` (as CI runs; minutes of linting). A corpus that is not
downloaded (a fresh CI machine) is a skip in every run whose reason counts the verdicts left
unchecked, listed at the end of the run: no run passes over them silently.
Every rule runs, preview rules too, in the mode the finding was judged in: a line judged true
must stay reported (a fix that loses it loses recall on real code), and a line judged false must
stay quiet when its rule runs by default. A rule that is opt-in (by the precision policy or by
design) may still report lines judged false, and so may `--strict`: their precision is measured,
not floored. Only the files holding judged lines are linted (whole packages for cross-file
rules).

Two marks record known departures, and each is a ratchet:
- `"open": true` on a judged-false line of a default rule that is still reported (an open false
  finding, not silenced): when it goes quiet the test fails until the mark is dropped;
- `"missed": "<why>"` on a judged-true line that is no longer reported: when it is reported
  again the test fails until the mark is dropped.
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


CORPORA = {name: load_corpus(name) for name in ("tuning", "heldout", "fresh", "blind")}
LATER = ("heldout", "fresh", "blind")  # measured before anyone tuned on them, each with its pins file
PINS = {name: json.loads(CORPORA[name].CORPORA[name].pins.read_text()) for name in LATER}
# Rules whose finding depends on another file (CTG114 reads the callee's contract where the
# callee is defined): a package holding such a verdict is linted whole, the others file by file.
CROSS_FILE = {"CTG114"}


def downloaded(realcode) -> bool:
    cache = realcode.default_cache()
    return all((realcode.tree_of(cache, name) / ".complete").exists() for name in realcode.PINNED)


@pytest.mark.parametrize("corpus", LATER)
def test_each_later_list_is_pinned_and_disjoint_from_the_earlier_ones(corpus):
    realcode = CORPORA[corpus]
    assert realcode.PINNED == PINS[corpus]["packages"]
    earlier = set()
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
        if "missed" in entry:
            assert entry["missed"].strip() and entry["verdict"] == "true", entry


def not_checked(realcode, corpus: str, mode: str, entries: list[dict]) -> str | None:
    """Why the verdicts of `corpus` in `mode` cannot be checked here, saying what goes
    unchecked and how to check it; None when they can."""
    if not entries:
        return f"nothing to check: the {corpus} corpus has no {mode}-mode verdicts"
    if downloaded(realcode):
        return None
    missing = [name for name in realcode.PINNED
               if not (realcode.tree_of(realcode.default_cache(), name) / ".complete").exists()]
    return (f"NOT CHECKED: {len(entries)} {mode}-mode verdicts of the {corpus} corpus "
            f"({sum(e['verdict'] == 'true' for e in entries)} judged true, "
            f"{sum(e['verdict'] == 'false' for e in entries)} judged false), behind the "
            f"README's precision numbers: {len(missing)} of its {len(realcode.PINNED)} packages "
            f"are not downloaded in {realcode.default_cache()} (first: {missing[0]}); "
            f"`python benchmarks/realcode.py --corpus {corpus}` downloads them")


def test_an_unchecked_corpus_says_what_it_did_not_check(tmp_path, monkeypatch):
    realcode = CORPORA["tuning"]
    monkeypatch.setenv(realcode.CACHE_ENV, str(tmp_path))
    entries = [e for e in json.loads(realcode.JUDGED.read_text()) if e["mode"] == "default"]
    reason = not_checked(realcode, "tuning", "default", entries)
    assert reason.startswith(f"NOT CHECKED: {len(entries)} default-mode verdicts of the tuning")
    assert str(tmp_path) in reason and "--corpus tuning" in reason
    assert f"{len(realcode.PINNED)} of its {len(realcode.PINNED)} packages" in reason


@pytest.mark.parametrize("mode", ["default", "strict"])
@pytest.mark.parametrize("corpus", [
    pytest.param(name, marks=[pytest.mark.slow] if downloaded(realcode) else [])
    for name, realcode in CORPORA.items()])
def test_verdicts_hold(corpus, mode):
    """Slow where the corpus is downloaded (minutes of linting); elsewhere a skip in every run,
    whose reason counts the verdicts left unchecked (listed at the end of the run)."""
    from contiglint.rules import registry, rule_by_code

    realcode = CORPORA[corpus]
    entries = [e for e in json.loads(realcode.JUDGED.read_text()) if e["mode"] == mode]
    reason = not_checked(realcode, corpus, mode, entries)
    if reason:
        pytest.skip(reason)
    cache = realcode.default_cache()
    trees = {name: realcode.tree_of(cache, name) for name in realcode.PINNED}
    whole = {e["package"] for e in entries if e["code"] in CROSS_FILE}
    files = sorted({trees[e["package"]] / e["path"] for e in entries if e["package"] not in whole}
                   | {trees[name] for name in whole})
    found = realcode.lint(cache, list(trees.values()), mode == "strict", 2, files)
    reported = {realcode.key(f) for f in found}
    wrong = defaultdict(list)
    for entry in entries:
        flagged = realcode.key(entry) in reported
        rule = rule_by_code(entry["code"])
        quiet_expected = mode == "default" and not registry.is_opt_in(rule)  # runs by default
        if entry["verdict"] == "false" and quiet_expected and flagged != entry.get("open", False):
            wrong["judged false, reported" if flagged else
                  "marked open, now quiet: drop its mark"].append(realcode.key(entry))
        if entry["verdict"] == "true" and not flagged and "missed" not in entry:
            wrong["judged true, no longer reported"].append(realcode.key(entry))
        if "missed" in entry and flagged:
            wrong["marked missed, reported again: drop its mark"].append(realcode.key(entry))
    assert not wrong, json.dumps(wrong, indent=1)
