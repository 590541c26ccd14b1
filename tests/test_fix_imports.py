"""LibCST is a dependency of the fix path only: a check run reports the statement-level fixes
as available without importing it; asking for the edits (--diff, --fix, JSON) makes them with
it. Every process the CLI starts reports its imports (PYTHONPROFILEIMPORTTIME)."""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys

import pytest

from tests.clitools import ROOT, environment

STATEMENT_FIXES = ["CTG106", "CTG107", "CTG109", "CTG111"]


@pytest.fixture
def fixtures(tmp_path):
    for code in STATEMENT_FIXES:
        shutil.copytree(ROOT / "fixtures" / code, tmp_path / code,
                        ignore=shutil.ignore_patterns("*.fixed.py"))
    return tmp_path


def run(cwd, *args):
    env = environment()
    env["PYTHONPROFILEIMPORTTIME"] = "1"
    process = subprocess.run([sys.executable, "-m", "contiglint", "--select", "CTG1", "--extend-select",
                               "CTG101", *args],
                             cwd=cwd, capture_output=True, text=True, env=env, timeout=300)
    imported = any(line.split("|")[-1].strip().startswith("libcst")
                   for line in process.stderr.splitlines() if line.startswith("import time:"))
    return process, imported


@pytest.mark.parametrize("args", [["--no-cache", "-j", "1"], ["-j", "2"], ["--statistics"]])
def test_check_run_never_imports_libcst(fixtures, args):
    for _ in range(2):  # the second run with a cache reads the stored fixes back
        process, imported = run(fixtures, "--unsafe-fixes", *args)
        assert process.returncode == 1, process.stderr[-2000:]
        assert "[*]" in process.stdout  # the statement fixes are offered...
        assert not imported  # ...without LibCST


def test_edits_are_made_with_libcst_when_asked_for(fixtures):
    process, imported = run(fixtures, "--format", "json", "--no-cache")
    findings = json.loads(process.stdout)
    statement = [f for f in findings if f["code"] in STATEMENT_FIXES and f["fix"]]
    assert statement and all(f["fix"]["edits"] for f in statement)
    assert imported


def test_diff_from_a_cached_check_matches_a_fresh_one(fixtures):
    run(fixtures, "--unsafe-fixes")  # fills the cache with unresolved statement fixes
    cached, _ = run(fixtures, "--format", "json")
    fresh, _ = run(fixtures, "--format", "json", "--no-cache")
    assert json.loads(cached.stdout) == json.loads(fresh.stdout) != []


def test_without_libcst_statement_fixes_are_not_offered(fixtures, tmp_path_factory):
    """Without the `fix` extra the same findings are reported; those whose fix adds
    statements have none, and --fix applies the others."""
    shutil.copytree(ROOT / "fixtures" / "CTG101", fixtures / "CTG101",
                    ignore=shutil.ignore_patterns("*.fixed.py"))  # expression-level fixes
    blocker = tmp_path_factory.mktemp("block")
    (blocker / "sitecustomize.py").write_text("import sys\nsys.modules['libcst'] = None\n")
    env = environment()
    env["PYTHONPATH"] = os.pathsep.join([str(blocker), env["PYTHONPATH"]])

    def cli(*args):
        return subprocess.run([sys.executable, "-m", "contiglint", "--select", "CTG1", "--extend-select",
                               "CTG101", *args],
                              cwd=fixtures, capture_output=True, text=True, env=env,
                              timeout=300)

    with_libcst = json.loads(run(fixtures, "--format", "json", "--no-cache")[0].stdout)
    process = cli("--format", "json", "--no-cache")
    without = json.loads(process.stdout)
    assert [(f["path"], f["line"], f["code"]) for f in without] == \
        [(f["path"], f["line"], f["code"]) for f in with_libcst]
    assert [f for f in without if f["code"] in STATEMENT_FIXES and f["fix"]] == []
    assert any(f["fix"] for f in without)  # expression-level fixes are still there
    process = cli("--fix", "--unsafe-fixes", "--no-cache")
    assert process.returncode in (0, 1) and "Traceback" not in process.stderr, process.stderr
    assert "fixed" in process.stdout


def test_without_libcst_the_run_says_once_what_adds_the_statement_fixes(tmp_path):
    """`--fix --unsafe-fixes --diff` without LibCST said "Would fix 1 problem" and nothing of
    the statement-level fixes it could not make: one hint line on stderr says what adds them
    (only where unsafe fixes are asked for; not with --quiet)."""
    blocker = tmp_path / "block"
    blocker.mkdir()
    (blocker / "sitecustomize.py").write_text("import sys\nsys.modules['libcst'] = None\n")
    env = environment()
    env["PYTHONPATH"] = os.pathsep.join([str(blocker), env["PYTHONPATH"]])
    (tmp_path / "m.py").write_text(
        "import torch\nimport torch.distributed as dist\n\n\ndef f(x, lib):\n    t = x.t()\n"
        "    lib.read(t.data_ptr())\n    dist.all_reduce(t)\n    lib.read(t[:, ::2].data_ptr())\n"
        "    return t.view(-1)\n")

    def cli(*args):
        return subprocess.run([sys.executable, "-m", "contiglint", "--select",
                               "CTG101,CTG106,CTG107", "--no-cache", *args, "m.py"],
                              cwd=tmp_path, capture_output=True, text=True, env=env,
                              timeout=120)

    hint = "contiglint: hint: 3 fixes that add statements need LibCST: " \
        "pip install 'contiglint[fix]'\n"
    process = cli("--fix", "--unsafe-fixes", "--diff")
    assert process.returncode == 1 and "+    return t.reshape(-1)" in process.stdout
    assert process.stderr == hint + "Would fix 1 problem in 1 file.\n"
    process = cli("--unsafe-fixes")  # a check: the same hint, the summary counts one fix
    assert process.stderr == hint and "(1 fixable with --fix)" in process.stdout
    assert cli("--fix", "--diff").stderr == "Would fix 1 problem in 1 file.\n"
    assert cli("--fix", "--unsafe-fixes", "--diff", "--quiet").stderr == ""
    process = subprocess.run([sys.executable, "-m", "contiglint", "--select",
                              "CTG101,CTG106,CTG107", "--no-cache", "--fix", "--unsafe-fixes",
                              "--diff", "m.py"], cwd=tmp_path, capture_output=True, text=True,
                             env=environment(), timeout=120)  # with LibCST: all four
    assert process.stderr == "Would fix 4 problems in 1 file.\n", process.stderr
