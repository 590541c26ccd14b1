"""The verdicts of benchmarks/heldout_judged.json hold against the current linter.

The held-out corpus (`python benchmarks/realcode.py --corpus heldout`, pins in
benchmarks/heldout.json) is real code outside the tuning set. Its verdicts were MEASURED on the
contiglint commit that heldout.json names ("measured_on"): at that commit nobody had tuned on
these packages. Changing rules or the engine while looking at these verdicts makes them tuning
data; quote them as such from then on, and measure on fresh packages for an untuned number.

Skipped unless that corpus is downloaded (`CONTIGLINT_HELDOUT_DIR` points elsewhere than
~/.cache/contiglint/heldout). Every rule runs, preview rules too, in the mode the finding was
judged in: a line judged true must stay reported (a fix that loses it loses recall on real
code), and a line judged false must stay quiet when its rule runs by default. A preview rule
(opt-in by the precision policy) may still report lines judged false, and so may `--strict`:
their held-out precision is measured, not floored. Only the files holding judged lines are linted.

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
spec = importlib.util.spec_from_file_location("realcode_heldout",
                                              ROOT / "benchmarks" / "realcode.py")
realcode = importlib.util.module_from_spec(spec)
spec.loader.exec_module(realcode)
realcode.use_corpus("heldout")

HELDOUT = json.loads(realcode.HELDOUT.read_text())
TUNING = {"torchvision", "timm", "transformers", "monai", "torch-geometric", "speechbrain",
          "segmentation-models-pytorch", "torchrec", "pyannote-audio", "gpytorch", "torchrl",
          "tensordict", "captum", "x-transformers", "vector-quantize-pytorch", "liger-kernel",
          "megatron-core"}
CACHE = realcode.default_cache()
JUDGED = json.loads(realcode.JUDGED.read_text())
TREES = {name: realcode.tree_of(CACHE, name) for name in realcode.PINNED}
DOWNLOADED = all((tree / ".complete").exists() for tree in TREES.values())
# Rules whose finding depends on another file (CTG114 reads the callee's contract where the
# callee is defined): a package holding such a verdict is linted whole, the others file by file.
CROSS_FILE = {"CTG114"}


def test_heldout_list_is_pinned_and_disjoint_from_the_tuning_set():
    assert realcode.PINNED == HELDOUT["packages"]
    assert not set(realcode.PINNED) & TUNING
    assert re.fullmatch(r"[0-9a-f]{7,40}", HELDOUT["measured_on"])
    for name, version in realcode.PINNED.items():
        assert re.fullmatch(r"[0-9]+(\.[0-9]+)+", version), (name, version)


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
        if "open" in entry:
            assert entry["open"] is True and entry["verdict"] == "false", entry
            assert entry["mode"] == "default", entry


@pytest.mark.skipif(not DOWNLOADED, reason="held-out corpus not downloaded "
                    "(python benchmarks/realcode.py --corpus heldout)")
@pytest.mark.parametrize("mode", ["default", "strict"])
def test_verdicts_hold(mode):
    from contiglint.rules import rule_by_code

    entries = [e for e in JUDGED if e["mode"] == mode]
    whole = {e["package"] for e in entries if e["code"] in CROSS_FILE}
    files = sorted({TREES[e["package"]] / e["path"] for e in entries if e["package"] not in whole}
                   | {TREES[name] for name in whole})
    found = realcode.lint(CACHE, list(TREES.values()), mode == "strict", 2, files)
    reported = {realcode.key(f) for f in found}
    wrong = defaultdict(list)
    for entry in entries:
        flagged = realcode.key(entry) in reported
        quiet_expected = mode == "default" and not rule_by_code(entry["code"]).preview
        if entry["verdict"] == "false" and quiet_expected and flagged != entry.get("open", False):
            wrong["judged false, reported" if flagged else
                  "marked open, now quiet: drop its mark"].append(realcode.key(entry))
        if entry["verdict"] == "true" and not flagged:
            wrong["judged true, no longer reported"].append(realcode.key(entry))
    assert not wrong, json.dumps(wrong, indent=1)
