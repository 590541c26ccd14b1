"""`contiglint run` / `python -m contiglint.runtime`: runs the script as __main__, keeps its
exit status and output, and prints a report naming the faulty line."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("torch")

ROOT = Path(__file__).parent.parent


def run(args, cwd):
    paths = [str(ROOT), os.environ.get("PYTHONPATH", "")]
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(paths)}
    return subprocess.run([sys.executable, "-m", "contiglint.runtime", *args], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=120)


SCRIPT = """\
import sys
import torch
from helpers import flatten_heads

print("argv", sys.argv[1:])
x = torch.randn(2, 3, 4)
y = x.transpose(1, 2)
flatten_heads(y)
"""
HELPER = """\
def flatten_heads(t):
    return t.view(t.shape[0], -1)
"""


@pytest.fixture
def project(tmp_path):
    (tmp_path / "train.py").write_text(SCRIPT)
    (tmp_path / "helpers.py").write_text(HELPER)
    return tmp_path


def test_names_the_faulty_line_and_keeps_the_scripts_failure(project):
    done = run(["train.py", "--lr", "3"], project)
    assert done.returncode == 1
    assert "argv ['--lr', '3']" in done.stdout
    assert "helpers.py:2: CTG101" in done.stderr
    assert "made non-contiguous at train.py:7" in done.stderr
    # the script's traceback is printed like Python's, without runpy/contiglint frames
    assert 'File "' in done.stderr and "runpy" not in done.stderr
    assert "contiglint/verify" not in done.stderr


def test_json_output_file(project):
    done = run(["--format", "json", "--output", "report.json", "train.py"], project)
    assert done.returncode == 1
    report = json.loads((project / "report.json").read_text())
    (entry,) = report["entries"]
    assert (Path(entry["file"]).name, entry["line"], entry["code"]) == ("helpers.py", 2, "CTG101")
    assert entry["shape"] == [2, 4, 3] and entry["strides"] == [12, 1, 4]
    assert entry["made_non_contiguous_at"][0]["line"] == 7


def test_clean_script_exit_codes_and_strict(tmp_path):
    (tmp_path / "ok.py").write_text("import torch\nx = torch.randn(3, 4)\nx.t().reshape(-1)\n")
    (tmp_path / "exits.py").write_text("import sys\nsys.exit(3)\n")
    plain = run(["ok.py"], tmp_path)
    assert plain.returncode == 0 and "ok.py:3: CTG201" in plain.stderr
    assert run(["--strict", "ok.py"], tmp_path).returncode == 1
    assert run(["exits.py"], tmp_path).returncode == 3


def test_usage_errors(tmp_path):
    assert run([], tmp_path).returncode == 2
    assert run(["missing.py"], tmp_path).returncode == 2


def test_cli_main_in_process(project, monkeypatch, capsys):
    from contiglint.runtime.cli import main
    monkeypatch.chdir(project)
    saved = list(sys.path)
    status = main(["--include", str(project), "train.py"])
    assert sys.path == saved
    assert status == 1
    assert "helpers.py:2: CTG101" in capsys.readouterr().err
    sys.modules.pop("helpers", None)


def test_run_module(project):
    done = run(["-m", "train", "x"], project)
    assert done.returncode == 1 and "helpers.py:2: CTG101" in done.stderr
    assert "argv ['x']" in done.stdout


CHAIN = """\
import torch


def helper(t):
    return t.data_ptr()


def main():
    helper(torch.randn(4, 6).t())


main()
"""
LAUNCHER = """\
import sys
from contiglint.cli import main
sys.exit(main())
"""


def _chain(stderr: str) -> list[str]:
    return [line.strip() for line in stderr.splitlines() if "called from" in line]


def _launched(command, cwd):
    paths = [str(ROOT), os.environ.get("PYTHONPATH", "")]
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(paths)}
    done = subprocess.run([*command, "run", "prog.py"], cwd=cwd, env=env, capture_output=True,
                          text=True, timeout=120)
    assert "prog.py:5: CTG106" in done.stderr, done.stderr
    return _chain(done.stderr)


def test_call_chain_names_user_files_only_through_the_console_script(tmp_path):
    """`contiglint run` as users start it, through the console script pip installed: the
    chain ends at the script's own module, not at the launcher (`bin/contiglint:8`)."""
    script = Path(sys.executable).parent / "contiglint"
    if not script.exists():
        pytest.skip(f"no console script at {script}: contiglint is not installed there")
    (tmp_path / "prog.py").write_text(CHAIN)
    assert _launched([str(script)], tmp_path) == [
        "called from prog.py:9 (main)", "called from prog.py:12 (<module>)"]


def test_call_chain_ends_where_contiglint_started_the_program(tmp_path):
    """A launcher outside every scripts directory (a wrapper of one's own, a tool's
    symlink target) is not the program either: the chain ends at contiglint's frames."""
    (tmp_path / "prog.py").write_text(CHAIN)
    launcher = tmp_path / "tools" / "lint-launcher"
    launcher.parent.mkdir()
    launcher.write_text(LAUNCHER)
    assert _launched([sys.executable, str(launcher)], tmp_path) == [
        "called from prog.py:9 (main)", "called from prog.py:12 (<module>)"]
