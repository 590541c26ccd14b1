"""The flake8 plugin reports exactly what the CLI reports: same files, lines, columns, codes."""
from __future__ import annotations

import ast
import subprocess
import sys
from importlib.metadata import entry_points
from pathlib import Path

import pytest

from tests.clitools import (
    BAD, BAD_LINE, CLEAN, EXAMPLE_SELECT, PREVIEW_BAD, PREVIEW_CODE, PREVIEW_LINE, ROOT,
    environment, findings_json, write,
)
from contiglint.flake8_plugin import ContiglintChecker

FORMAT = "%(path)s|%(row)d|%(col)d|%(code)s"


def corpus_files() -> list[str]:
    """Every fixture program (fixtures/**/*.py, not the *.fixed.py expectations) and example."""
    fixtures = [path for path in (ROOT / "fixtures").rglob("*.py")
                if not path.name.endswith(".fixed.py")]
    examples = list((ROOT / "examples").rglob("*.py"))
    return sorted(str(path.relative_to(ROOT)) for path in fixtures + examples)


def flake8_config(directory: Path) -> Path:
    """Use the installed entry point if there is one (loading it twice is an error in flake8),
    else register this source tree as a local plugin; either way PYTHONPATH picks this tree."""
    installed = any(ep.name == "CTG" and ep.value.startswith("contiglint.")
                    for ep in entry_points(group="flake8.extension"))
    text = "[flake8]\n"
    if not installed:
        text += ("[flake8:local-plugins]\nextension =\n"
                 "    CTG = contiglint.flake8_plugin:ContiglintChecker\n"
                 f"paths = {ROOT}\n")
    path = directory / "flake8.cfg"
    path.write_text(text)
    return path


def flake8_findings(files: list[str], cwd: Path, config: Path, *extra: str) -> set[tuple]:
    process = subprocess.run(
        [sys.executable, "-m", "flake8", "--config", str(config), "--select", "CTG",
         "--extend-select", ",".join(EXAMPLE_SELECT[1:]), "--format", FORMAT, *extra, *files], cwd=cwd, capture_output=True, text=True,
        env=environment(), timeout=300)
    assert process.returncode in (0, 1), process.stderr
    assert "Traceback" not in process.stderr, process.stderr
    rows = [line.split("|") for line in process.stdout.splitlines()]
    return {(str(Path(path)), int(row), int(col), code) for path, row, col, code in rows}


def cli_findings(files: list[str], cwd: Path, *extra: str) -> set[tuple]:
    return {(str(Path(f["path"])), f["line"], f["column"], f["code"])
            for f in findings_json(*extra, *files, cwd=cwd) if f["code"].startswith("CTG")}


def test_flake8_and_cli_agree_on_every_fixture_and_example(tmp_path):
    files = corpus_files()
    assert "examples/attention.py" in files
    from_flake8 = flake8_findings(files, ROOT, flake8_config(tmp_path))
    from_cli = cli_findings(files, ROOT)
    assert from_cli, "the corpus should produce findings to compare"
    assert from_flake8 == from_cli


def test_flake8_and_cli_agree_on_non_ascii_bom_and_crlf_lines(tmp_path):
    text = BAD.replace("y = x", "\u00e9t\u00e9 = '\u4e2d'; y = x").replace("\n", "\r\n")
    (tmp_path / "wide.py").write_bytes(text.encode("utf-8"))
    (tmp_path / "bom.py").write_bytes(  # a BOM must not shift columns on line 1
        b"\xef\xbb\xbfimport torch; y = torch.randn(2, 3, 4).transpose(1, 2).view(2, 12)\n")
    write(tmp_path, "noqa.py", BAD.replace("view(2, 12)", "view(2, 12)  # noqa: CTG101"))
    files = ["wide.py", "bom.py", "noqa.py"]
    from_cli = cli_findings(files, tmp_path)
    assert {(path, line, code) for path, line, _, code in from_cli} == \
        {("wide.py", BAD_LINE, "CTG101"), ("bom.py", 1, "CTG101")}
    assert flake8_findings(files, tmp_path, flake8_config(tmp_path)) == from_cli


def test_preview_rule_runs_only_when_flake8_names_its_code(tmp_path):
    write(tmp_path, "bad.py", PREVIEW_BAD)
    config = flake8_config(tmp_path)
    process = subprocess.run(
        [sys.executable, "-m", "flake8", "--config", str(config), "--select", "CTG",
         "--format", FORMAT, "bad.py"], cwd=tmp_path, capture_output=True, text=True,
        env=environment(), timeout=300)
    assert process.returncode == 0 and process.stdout == "", process.stdout + process.stderr
    assert {code for *_, code in flake8_findings(["bad.py"], tmp_path, config)} == {PREVIEW_CODE}


@pytest.mark.parametrize("flag, config, reported", [
    (["--contiglint-preview"], "", True),
    ([], "[tool.contiglint]\npreview = true\n", True),
    ([], "[tool.contiglint]\npreview = false\n", False),
    (["--contiglint-preview"], "[tool.contiglint]\npreview = false\n", True),
])
def test_preview_reaches_the_plugin_from_its_option_or_the_project(tmp_path, flag, config,
                                                                   reported):
    write(tmp_path, "bad.py", PREVIEW_BAD)
    if config:
        write(tmp_path, "pyproject.toml", config)
    process = subprocess.run(
        [sys.executable, "-m", "flake8", "--config", str(flake8_config(tmp_path)), "--select",
         "CTG", "--format", FORMAT, *flag, "bad.py"], cwd=tmp_path, capture_output=True,
        text=True, env=environment(), timeout=300)
    assert process.returncode == (1 if reported else 0), process.stderr
    assert process.stdout == (f"bad.py|{PREVIEW_LINE}|{process.stdout.split('|')[2]}|{PREVIEW_CODE}\n"
                              if reported else "")


def test_checker_yields_zero_based_columns_and_flake8_messages(monkeypatch):
    monkeypatch.setattr(ContiglintChecker, "extend_select", ("CTG101",))  # a preview rule
    lines = BAD.splitlines(keepends=True)
    results = list(ContiglintChecker(ast.parse(BAD), lines, "bad.py").run())
    assert [(line, text.split()[0], kind) for line, _, text, kind in results] == \
        [(BAD_LINE, "CTG101", ContiglintChecker)]
    expected = next(f["column"] for f in findings_json("-", cwd=ROOT, stdin=BAD)
                    if f["code"] == "CTG101")
    assert results[0][1] == expected - 1


@pytest.mark.parametrize("flag, strict", [([], False), (["--contiglint-strict"], True)])
def test_strict_option_reaches_the_checker(tmp_path, flag, strict):
    write(tmp_path, "probe.py", "import sys\nimport contiglint.flake8_plugin as p\n")
    config = flake8_config(tmp_path)
    process = subprocess.run(
        [sys.executable, "-c",
         "import sys; from flake8.main.cli import main; "
         "import contiglint.flake8_plugin as p; "
         "code = 0\n"
         "try:\n    main(sys.argv[1:])\nexcept SystemExit as e:\n    code = e.code\n"
         "print('STRICT', p.ContiglintChecker.strict)",
         "--config", str(config), "--select", "CTG", *flag, "probe.py"],
        cwd=tmp_path, capture_output=True, text=True, env=environment(), timeout=120)
    assert f"STRICT {strict}" in process.stdout, process.stderr


def test_flake8_and_cli_agree_on_a_configured_project(tmp_path):
    """[tool.contiglint] reaches the plugin: per-file-ignores, ignore, strict and rule options
    give the same findings in flake8 as in the CLI (before, flake8 reported all of them)."""
    (tmp_path / "pyproject.toml").write_text(
        "[tool.contiglint]\nstrict = true\nextend-select = ['CTG113']\n"
        "ignore = ['CTG104']\n"
        "[tool.contiglint.per-file-ignores]\n'legacy/*' = ['CTG101']\n"
        "[tool.contiglint.CTG101]\nfix-style = 'contiguous-view'\n")
    moved = "import torch\n\ndef f(x):\n    return x.data_ptr()\n\n" \
            "y = torch.randn(2, 3).t().cuda()\nz = torch.randn(2, 3).contiguous().contiguous()\n"
    write(tmp_path, "pkg/a.py", BAD + moved)
    write(tmp_path, "legacy/b.py", BAD + moved)
    files = ["pkg/a.py", "legacy/b.py"]
    from_cli = cli_findings(files, tmp_path)
    codes = {(Path(path).parts[0], code) for path, _, _, code in from_cli}
    assert ("pkg", "CTG101") in codes and ("legacy", "CTG101") not in codes  # per-file-ignores
    assert ("pkg", "CTG106") in codes  # strict: the parameter's data_ptr()
    assert ("pkg", "CTG113") in codes and ("pkg", "CTG104") not in codes
    assert flake8_findings(files, tmp_path, flake8_config(tmp_path)) == from_cli
    (tmp_path / "pyproject.toml").write_text("[tool.contiglint]\nselect = ['CTG999']\n")
    process = subprocess.run(
        [sys.executable, "-m", "flake8", "--config", str(flake8_config(tmp_path)), "--select",
         "CTG", *files], cwd=tmp_path, capture_output=True, text=True, env=environment(),
        timeout=300)
    assert process.returncode != 0 and "unknown code 'CTG999'" in process.stderr


def test_registered_twice_runs_once_and_keeps_the_option(tmp_path):
    """A `[flake8:local-plugins]` entry for the class the installed entry point also names (or
    two local entries, where nothing is installed): flake8 starts, the strict option works, and
    each finding is reported once, in one process and with parallel jobs."""
    write(tmp_path, "a.py", BAD)
    write(tmp_path, "b.py", BAD)
    write(tmp_path, "c.py", "import torch\n\ndef f(x):\n    return x.data_ptr()\n")
    installed = any(ep.name == "CTG" and ep.value.startswith("contiglint.")
                    for ep in entry_points(group="flake8.extension"))
    entries = "    CTG = contiglint.flake8_plugin:ContiglintChecker\n"
    if not installed:
        entries += "    CTG1 = contiglint.flake8_plugin:ContiglintChecker\n"
    config = tmp_path / "twice.cfg"
    config.write_text(f"[flake8]\n[flake8:local-plugins]\nextension =\n{entries}"
                      f"paths = {ROOT}\n")
    files = ["a.py", "b.py", "c.py"]
    expected = {(path, BAD_LINE, "CTG101") for path in ("a.py", "b.py")}
    for jobs in ("1", "2"):
        for strict in ([], ["--contiglint-strict"]):
            process = subprocess.run(
                [sys.executable, "-m", "flake8", "--config", str(config), "--select", "CTG",
                 "--extend-select", "CTG101,CTG106", "--format", FORMAT, "-j", jobs, *strict,
                 *files],
                cwd=tmp_path,
                capture_output=True, text=True, env=environment(), timeout=300)
            assert process.returncode == 1, process.stderr
            assert "Traceback" not in process.stderr, process.stderr
            rows = [tuple(line.split("|")) for line in process.stdout.splitlines()]
            assert len(rows) == len(set(rows)), rows  # nothing reported twice
            found = {(path, int(row), code) for path, row, _, code in rows}
            assert found == (expected | {("c.py", 4, "CTG106")} if strict else expected)


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_bad_rule_option_is_the_clis_one_line_message(tmp_path, jobs):
    """A bad `[tool.contiglint]` value ends the flake8 run with the CLI's one-line message and
    exit 2, all flake8 prints, before any file is checked (with -j2 too): for the project of
    the named paths, and for a nested project flake8 would meet while checking, which no
    longer stops a -j2 run from inside a worker (flake8's Pool.terminate could hang there).
    A nested project flake8 excludes is not read."""
    (tmp_path / "pyproject.toml").write_text('[tool.contiglint.CTG107]\nbackend = "ncll"\n')
    for name in ("a.py", "b.py", "c.py"):
        write(tmp_path, name, CLEAN)

    def cli_message(path):
        process = subprocess.run([sys.executable, "-m", "contiglint", path], cwd=tmp_path,
                                 capture_output=True, text=True, env=environment(), timeout=120)
        [line] = process.stderr.splitlines()
        assert process.returncode == 2 and line.startswith("contiglint: error: "), line
        return line

    message = cli_message("a.py")
    assert "backend" in message and "'ncll'" in message

    def flake8(*paths):
        return subprocess.run(
            [sys.executable, "-m", "flake8", "--config", str(flake8_config(tmp_path)),
             "--select", "CTG", "-j", jobs, *paths], cwd=tmp_path, capture_output=True,
            text=True, env=environment(), timeout=300)

    for paths in (["a.py", "b.py", "c.py"], ["."], []):
        process = flake8(*paths)
        assert (process.returncode, process.stdout, process.stderr) == (2, "", message + "\n")
    (tmp_path / "pyproject.toml").unlink()
    write(tmp_path, "inner/pyproject.toml", '[tool.contiglint]\nselect = ["CTG999"]\n')
    for name in ("d.py", "e.py"):
        write(tmp_path, f"inner/{name}", CLEAN)
    message = cli_message("inner/d.py")
    assert "'CTG999'" in message
    process = flake8("a.py", "inner")  # named: read before checking
    assert (process.returncode, process.stdout, process.stderr) == (2, "", message + "\n")
    process = flake8(".")  # nested: read with the files flake8 lists
    assert (process.returncode, process.stdout, process.stderr) == (2, "", message + "\n")
    process = flake8("--extend-exclude", "inner", ".")
    assert (process.returncode, process.stdout, process.stderr) == (0, "", "")
