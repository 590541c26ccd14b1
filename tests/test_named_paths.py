"""What the command checks of the paths it is given, through the real command: a directory
named on the command line is checked even where a .gitignore above it ignores it, a run that
found no Python file says so instead of "All checks passed!", and a named file that is not
Python says why it was read as Python."""
from __future__ import annotations

import json

from tests.clitools import BAD, CLEAN, EXAMPLE_NOT_RUN, contiglint, write

NO_FILES = "contiglint: warning: No Python files found under the given path(s)\n"


def test_a_named_directory_inside_a_gitignored_one_is_checked(tmp_path):
    (tmp_path / ".git").mkdir()
    write(tmp_path, ".gitignore", "build/\n*_gen.py\n")
    write(tmp_path, "build/gen/model.py", BAD)
    write(tmp_path, "build/gen/sub/deeper.py", BAD)
    write(tmp_path, "build/gen/table_gen.py", BAD)  # ignored by name, in any directory
    write(tmp_path, "src/model.py", BAD)
    process = contiglint("--format", "json", "--no-cache", "build/gen", cwd=tmp_path)
    paths = sorted(f["path"] for f in json.loads(process.stdout))
    assert paths == ["build/gen/model.py", "build/gen/sub/deeper.py"], process.stderr
    # a walk from above still leaves the ignored directory out
    process = contiglint("--format", "json", "--no-cache", ".", cwd=tmp_path)
    assert sorted(f["path"] for f in json.loads(process.stdout)) == ["src/model.py"]


def test_a_run_that_found_no_python_file_says_so(tmp_path):
    (tmp_path / ".git").mkdir()
    write(tmp_path, ".gitignore", "generated/\n")
    write(tmp_path, "generated/model.py", BAD)
    write(tmp_path, "docs/notes.txt", "nothing to see\n")
    for args in (["docs"], ["--fix", "docs"], ["--format", "json", "docs"], ["."]):
        process = contiglint("--no-cache", *args, cwd=tmp_path)
        assert process.returncode == 0, process.stderr
        assert process.stderr == NO_FILES, args
        assert "All checks passed!" not in process.stdout, args
    process = contiglint("--no-cache", "--diff", "docs", cwd=tmp_path)
    assert process.stderr == NO_FILES + "No fixes available.\n"
    process = contiglint("--no-cache", "-q", "docs", cwd=tmp_path)
    assert (process.returncode, process.stdout, process.stderr) == (0, "", "")
    # a run that found one file passes as before
    write(tmp_path, "docs/conf.py", CLEAN)
    process = contiglint("--no-cache", "docs", cwd=tmp_path)
    assert (process.stdout, process.stderr) == ("All checks passed!\n" + EXAMPLE_NOT_RUN, "")


def test_a_named_file_that_is_not_python_says_why_it_was_read_as_python(tmp_path):
    """As ruff and flake8 do, a named file is checked as Python whatever its name (a script
    without a suffix): the README does not parse, and its error says why it was parsed."""
    write(tmp_path, "README.md", "# The project\n\nDon't check a generated file: give it a "
          "`# contiglint: skip-file` comment.\n")
    process = contiglint("--no-cache", "README.md", cwd=tmp_path)
    assert process.returncode == 2
    assert "All checks passed!" not in process.stdout
    [error] = [line for line in process.stderr.splitlines() if " E999 " in line]
    assert error.startswith("README.md:") and error.endswith(
        "(checked as Python because it was named; its name does not end in .py)")
    write(tmp_path, "script", "import torch\nx = torch.ones(2)\n")  # a script: checked
    process = contiglint("--no-cache", "script", cwd=tmp_path)
    assert (process.returncode, process.stdout, process.stderr) == (
        0, "All checks passed!\n" + EXAMPLE_NOT_RUN, "")
