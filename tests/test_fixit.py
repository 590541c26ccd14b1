"""The Fixit rule pack, driven through the real `fixit` command on a copy of the fixtures:
`fixit lint` reports what `contiglint` reports, and `fixit fix` (repeated, as its passes
apply one round of fixes each) writes what `contiglint --fix --unsafe-fixes` writes."""
from __future__ import annotations

import ast
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from contiglint.rules import all_rules, registry
from tests.clitools import ROOT, contiglint, environment

pytest.importorskip("fixit")  # the `test` extra installs it
TEMPLATE = "{path}|{start_line}|{start_col}|{rule_name}|{message}"


def fixit(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    command = [sys.executable, "-c", "import sys; from fixit.cli import main; "
               "sys.argv[0] = 'fixit'; sys.exit(main())", *args]
    return subprocess.run(command, cwd=cwd, capture_output=True, text=True,
                          env=environment(), timeout=600)


def project(directory: Path) -> Path:
    directory.mkdir()
    for code_dir in sorted((ROOT / "fixtures").iterdir()):
        shutil.copytree(code_dir, directory / code_dir.name,
                        ignore=shutil.ignore_patterns("*.fixed.py"))
    opt_in = ", ".join(f'"{entry.code}"' for entry in registry.entries() if entry.opt_in)
    (directory / "pyproject.toml").write_text(
        '[tool.fixit]\nenable = ["contiglint.fixit"]\ndisable = ["fixit.rules"]\n\n'
        f'[tool.contiglint]\nextend-select = [{opt_in}]\n')
    return directory


def sources(directory: Path) -> dict[str, str]:
    return {str(p.relative_to(directory)): p.read_text(encoding="utf-8")
            for p in sorted(directory.rglob("*.py"))}


def test_fixit_lint_reports_what_the_cli_reports(tmp_path):
    root = project(tmp_path / "p")
    process = fixit("-o", "custom", "--output-template", TEMPLATE, "lint", ".", cwd=root)
    assert process.returncode != 0 and "Traceback" not in process.stderr, process.stderr
    reported = set()
    for line in process.stdout.splitlines():
        path, start_line, start_col, rule, message = line.split("|", 4)
        message = message.removesuffix(" (has autofix)").removesuffix(" [unsafe fix]")
        reported.add((os.path.normpath(path), int(start_line), int(start_col) + 1, rule,
                      message))
    process = contiglint("--format", "json", "--no-cache", ".", cwd=root)
    expected = {(os.path.normpath(f["path"]), f["line"], f["column"], f["code"], f["message"])
                for f in json.loads(process.stdout)}
    assert len(expected) > 100 and {code for *_, code, _ in expected} == \
        {rule.code for rule in all_rules()}
    assert reported == expected


def test_fixit_fix_writes_what_the_cli_writes(tmp_path):
    by_fixit, by_cli = project(tmp_path / "fixit"), project(tmp_path / "cli")
    before = sources(by_fixit)
    process = contiglint("--fix", "--unsafe-fixes", "--no-cache", ".", cwd=by_cli)
    assert process.returncode in (0, 1), process.stderr
    expected = sources(by_cli)
    for _ in range(10):  # one fixit pass applies one round of non-conflicting fixes
        current = sources(by_fixit)
        process = fixit("fix", "--automatic", ".", cwd=by_fixit)
        assert "Traceback" not in process.stderr, process.stderr
        if sources(by_fixit) == current:
            break
    fixed = sources(by_fixit)
    assert fixed == expected
    assert sum(fixed[name] != before[name] for name in fixed) > 20
    for name, text in fixed.items():
        ast.parse(text, name)
    goldens = {f"{p.parent.name}/{p.name.replace('.fixed.py', '.py')}": p.read_text("utf-8")
               for p in (ROOT / "fixtures").rglob("*.fixed.py")}
    assert goldens and all(fixed[name] == text for name, text in goldens.items())


@pytest.mark.parametrize("table, bad", [
    ('[tool.contiglint]\nselect = ["CTG999"]\n', "'CTG999'"),
    ('[tool.contiglint.CTG107]\nbackend = "ncll"\n', "'ncll'"),
])
def test_bad_contiglint_config_fails_the_run_as_fixit_fails_its_own(tmp_path, table, bad):
    """A typo in `[tool.contiglint]` is reported as Fixit reports a bad `[tool.fixit]` of a
    file's project (`path: EXCEPTION: message`, a file with errors; `fixit lint` exits
    non-zero, `fixit fix` exits 0 for its own errors too), never as a clean file."""
    (tmp_path / "pyproject.toml").write_text(
        '[tool.fixit]\nenable = ["contiglint.fixit"]\ndisable = ["fixit.rules"]\n\n' + table)
    (tmp_path / "m.py").write_text("import torch\n\nx = torch.randn(2, 3).t().view(6)\n")
    for command in (["lint", "m.py"], ["fix", "--automatic", "m.py"]):
        process = fixit(*command, cwd=tmp_path)
        output = process.stdout + process.stderr
        assert process.returncode != 0 or command[0] == "fix", output
        assert "file clean" not in output and "1 file with errors" in output, output
        [line] = [line for line in output.splitlines() if "EXCEPTION" in line]
        assert line.startswith("m.py: EXCEPTION: contiglint: ") and bad in line, line
        assert "pyproject.toml" in line
