"""The mutant-recall benchmark's own machinery (benchmarks/mutants.py, mutant_sites.py and the
repro cases in benchmarks/mutants_repro/), checked without the corpora."""
from __future__ import annotations

import importlib
import json
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
BENCH = ROOT / "benchmarks"
REPRO = BENCH / "mutants_repro"
sys.path.insert(0, str(BENCH))

import mutant_sites  # noqa: E402
import mutants  # noqa: E402

SOURCE = '''\
import numpy as np
import torch


def chained(x):
    return x.transpose(0, 1).contiguous().view(-1)


def through_name(x, ext_kernel):
    y = x.t().contiguous()
    ext_kernel(y)
    return y.view(-1)


def rebound(x):
    y = x.t().contiguous()
    y = y + 1
    return y.view(-1)


def unused(x):
    y = x.t().contiguous()
    return y.sum()


def collective(x, dist):
    dist.all_reduce(x.t().contiguous())


def shapes(x, a):
    z = np.reshape(a, (2, 3))
    return x.reshape(2, -1).sum() + torch.reshape(x, (-1,)).sum() + a.reshape(6)
'''


def by_line(sites):
    return {(s.line, s.operator): s for s in sites}


def test_operators_give_exactly_the_expected_mutated_text():
    sites = by_line(mutant_sites.sites_in(SOURCE, "pkg/mod.py"))
    chained = sites[6, "drop-contiguous"]
    assert chained.mutated == "    return x.transpose(0, 1).view(-1)"
    assert chained.sink == "view" and chained.sink_lines == [6]
    named = sites[10, "drop-contiguous"]  # its first sink: the name's first use in a sink
    assert named.mutated == "    y = x.t()" and named.sink_lines == [11]
    assert named.sink == "kernel ext_kernel"
    assert sites[27, "drop-contiguous"].mutated == "    dist.all_reduce(x.t())"
    assert sites[27, "drop-contiguous"].sink == "collective all_reduce"
    on_32 = sorted((s for s in mutant_sites.sites_in(SOURCE, "pkg/mod.py") if s.line == 32),
                   key=lambda s: s.col)
    assert [s.mutated for s in on_32] == [
        "    return x.view(2, -1).sum() + torch.reshape(x, (-1,)).sum() + a.reshape(6)",
        "    return x.reshape(2, -1).sum() + torch.reshape(x, (-1,)).sum() + a.view(6)"]
    assert [s.operator for s in on_32] == ["reshape-to-view"] * 2
    # a name assigned twice, a result that reaches no sink, module functions: no site
    assert (16, "drop-contiguous") not in sites and (22, "drop-contiguous") not in sites
    assert (31, "reshape-to-view") not in sites
    assert len(mutant_sites.sites_in(SOURCE, "pkg/mod.py")) == 5


def test_a_subscripted_call_is_a_kernel_launch_where_triton_is_imported():
    body = "def f(x, k):\n    k[(1,)](x.t().contiguous())\n"
    assert mutant_sites.sites_in(body, "m.py") == []
    (site,) = mutant_sites.sites_in("import triton\n" + body, "m.py")
    assert site.sink == "triton launch" and site.mutated == "    k[(1,)](x.t())"


def test_apply_edits_only_the_line_and_keeps_line_endings():
    source = SOURCE.replace("\n", "\r\n")
    site = by_line(mutant_sites.sites_in(source, "m.py"))[6, "drop-contiguous"]
    out = mutant_sites.apply(source, site)
    assert out.splitlines()[5] == "    return x.transpose(0, 1).view(-1)"
    assert out.count("\r\n") == source.count("\r\n")
    assert [a for a, b in zip(out.splitlines(), source.splitlines()) if a != b] == [
        "    return x.transpose(0, 1).view(-1)"]
    with pytest.raises(ValueError, match="no longer reads"):
        mutant_sites.apply(source.replace(".contiguous().view(-1)", ".view(-1)"), site)


def test_non_ascii_text_before_the_edit_is_kept():
    source = 'def f(x):\n    return {"é": x}["é"].contiguous().view(-1)\n'
    (site,) = mutant_sites.sites_in(source, "m.py")
    assert site.mutated == '    return {"é": x}["é"].view(-1)'


def test_the_key_survives_a_line_shift():
    site = min((s for s in mutant_sites.sites_in(SOURCE, "pkg/mod.py") if s.line == 32),
               key=lambda s: s.col)
    entry = mutants.entry_of("pkg", "1.0", site)
    shifted = "# a new header\n\n\n" + SOURCE
    moved = mutant_sites.relocate(entry, shifted)
    assert moved is not None and moved.line == 35
    assert moved.key("pkg", "1.0") == mutant_sites.key_of(entry)
    assert moved.mutated == site.mutated
    # the same text twice: the occurrence index tells them apart
    doubled = SOURCE + "\n\ndef again(x):\n    return x.transpose(0, 1).contiguous().view(-1)\n"
    first, second = [s for s in mutant_sites.sites_in(doubled, "m.py")
                     if s.text == "return x.transpose(0, 1).contiguous().view(-1)"]
    assert (first.occurrence, second.occurrence) == (0, 1)
    assert mutant_sites.relocate(mutants.entry_of("p", "1", second), doubled).line == second.line
    assert mutant_sites.relocate(entry, SOURCE.replace("x.reshape(2, -1)", "x.flatten()")) is None


def _result(label, default, every, strict=()):
    return {"label": label,
            "new_findings": {"default": default, "all rules": every, "strict": list(strict)}}


def test_caught_and_flagged_are_counted_per_rule_and_once_overall():
    results = [_result("bug", ["CTG101"], ["CTG101", "CTG102"], ["CTG101", "CTG102"]),
               _result("bug", [], ["CTG102"], ["CTG102"]),
               _result("bug", [], [], ["CTG101"]),
               _result("harmless", [], ["CTG101"], ["CTG101"]),
               _result("harmless", [], []),
               _result("undecided", ["CTG101"], ["CTG101"])]
    table = mutants.tally(results)
    assert table["default"]["all"] == Counter(bug=3, harmless=2, caught=1)
    assert table["default"]["CTG101"] == Counter(caught=1)
    assert table["all rules"]["all"] == Counter(bug=3, harmless=2, caught=2, flagged=1)
    assert table["all rules"]["CTG101"] == Counter(caught=1, flagged=1)
    assert table["all rules"]["CTG102"] == Counter(caught=2)
    assert table["strict"]["all"] == Counter(bug=3, harmless=2, caught=3, flagged=1)
    assert table["strict"]["CTG101"] == Counter(caught=2, flagged=1)


def test_the_table_prints_each_rule_overall_and_per_operator(capsys):
    results = [dict(_result("bug", [], ["CTG101"], ["CTG101"]), operator="drop-contiguous"),
               dict(_result("bug", [], [], ["CTG101"]), operator="reshape-to-view"),
               dict(_result("harmless", [], ["CTG101"]), operator="reshape-to-view")]
    mutants.print_table(results, "toy")
    rows = {line.split()[0]: line.split()[1:] for line in capsys.readouterr().out.splitlines()
            if line and not line.startswith(("mutant", "rule"))}
    assert rows["CTG101"] == ["0/2", "0%", "0/1", "0%", "1/2", "50%", "1/1", "100%",
                              "2/2", "100%", "0/1", "0%"]
    assert rows["all"] == rows["CTG101"]
    assert rows["drop-contiguous"] == ["0/1", "0%", "0/0", "1/1", "100%", "0/0", "1/1", "100%",
                                       "0/0"]
    assert rows["reshape-to-view"] == ["0/1", "0%", "0/1", "0%", "0/1", "0%", "1/1", "100%",
                                       "1/1", "100%", "0/1", "0%"]


def test_imported_package_modules_are_found(tmp_path):
    (tmp_path / "pkg" / "sub").mkdir(parents=True)
    for rel in ("pkg/__init__.py", "pkg/util.py", "pkg/sub/__init__.py", "pkg/sub/k.py"):
        (tmp_path / rel).write_text("")
    source = "from . import k\nfrom ..util import f\nimport pkg.sub\nimport os\nfrom x import y\n"
    assert mutants.imported_modules(tmp_path, "pkg/sub/m.py", source) == [
        "pkg/sub/__init__.py", "pkg/sub/k.py", "pkg/util.py"]


def _run(*args):
    return subprocess.run([sys.executable, str(BENCH / "mutants.py"), *args],
                          capture_output=True, text=True, timeout=120)


def test_bad_options_are_errors_that_name_them():
    bad = _run("--corpus", "nowhere")
    assert bad.returncode == 2 and "nowhere" in bad.stderr
    bad = _run("--corpus", "unseen", "--packages", "not-a-package")
    assert bad.returncode == 2 and "not-a-package" in bad.stderr
    bad = _run("--draw", "0")
    assert bad.returncode == 2 and "--draw" in bad.stderr
    bad = _run("--json", "/no/such/folder/out.json")
    assert bad.returncode == 2 and "--json" in bad.stderr
    assert _run("--bogus").returncode == 2


def _stored():
    return json.loads((BENCH / "mutants.json").read_text(encoding="utf-8"))


def test_stored_mutants_are_well_formed():
    stored = _stored()
    keys = [mutant_sites.key_of(e) for e in stored]
    assert len(keys) == len(set(keys))
    unseen = json.loads((BENCH / "mutants_unseen.json").read_text())["packages"]
    for e in stored:
        assert e["label"] in ("bug", "harmless", "undecided"), e
        assert (e["case"] is None) == (e["label"] == "undecided"), e
        assert e["label"] != "undecided" or e["reason"], e
        assert e["operator"] in mutant_sites.OPERATORS
        assert e["original"] != e["mutated"] and e["line"] in range(1, 100000)
        if e["corpus"] == "unseen":
            assert unseen[e["package"]] == e["version"]
    # the unseen packages are in none of the project's corpora
    sys.path.insert(0, str(BENCH))
    import realcode

    others = set(realcode.PINNED)
    for name in ("heldout.json", "fresh.json", "blind.json"):
        others |= set(json.loads((BENCH / name).read_text())["packages"])
    assert not set(unseen) & others


def _case_modules():
    return sorted(p.stem for p in REPRO.glob("*.py") if p.stem != "common")


def _case_module(name: str):
    """A case module of mutants_repro/, imported whichever test of this worker ran first (its
    `from common import ...` must find mutants_repro's common, not another directory's)."""
    if str(REPRO) not in sys.path:
        sys.path.insert(0, str(REPRO))
    common = sys.modules.get("common")
    if common is not None and Path(getattr(common, "__file__", "")).parent != REPRO:
        del sys.modules["common"]
    return importlib.import_module(name)


def test_every_case_named_in_mutants_json_exists():
    cases = {f"{m}:{name}" for m in _case_modules() for name in _case_module(m).CASES}
    named = {e["case"] for e in _stored() if e["case"]}
    assert named <= cases, named - cases
    assert cases <= named, f"cases no mutant uses: {cases - named}"


def test_decide_labels_by_running(capsys):
    import torch
    decide = _case_module("common").decide

    def case(mutant, n):
        x = torch.arange(n * 2.0).view(n, 2).t()
        return x.view(-1) if mutant else x.reshape(-1)

    assert decide("toy", case, [dict(n=1)]) == "harmless"
    assert decide("toy", case, [dict(n=1), dict(n=3)]) == "bug"
    assert decide("toy", lambda mutant: torch.ones(2) * (2 if mutant else 1), [{}]) == "bug"
    assert decide("toy", lambda mutant: 1 / 0, [{}]) == "broken"
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].startswith("toy: harmless") and "n=3" in lines[1]
    assert lines[1].startswith("toy: bug: mutant raises") and lines[3].startswith("toy: broken")


@pytest.mark.slow
@pytest.mark.parametrize("module", _case_modules())
def test_each_case_module_runs_and_gives_the_stored_labels(module):
    """Every case runs as a script (one outcome line each) and decides the label stored for
    the mutants that name it."""
    proc = subprocess.run([sys.executable, str(REPRO / f"{module}.py")], capture_output=True,
                          text=True, timeout=300, cwd=str(REPRO))
    assert proc.returncode == 0, proc.stderr
    outcome = dict(line.split(": ", 2)[:2] for line in proc.stdout.splitlines())
    cases = _case_module(module).CASES
    assert sorted(outcome) == sorted(cases)
    for e in _stored():
        if e["case"] and e["case"].startswith(f"{module}:"):
            assert outcome[e["case"].split(":", 1)[1]] == e["label"], e["case"]
