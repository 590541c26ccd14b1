"""`max-file-size`: a file over it is reported (E903, naming the limit and the file) and never
parsed; the run goes on with the other files. The measured bounds behind the default are in
benchmarks/pathological.py."""
from __future__ import annotations

from contiglint.engine import lint_source
from contiglint.settings import Settings
from tests.clitools import BAD, BAD_LINE, contiglint, write

LIMIT = 200
# over the limit in bytes, and a finding in it if it were checked
LARGE = BAD + "# " + "padding " * 40 + "\n"


def configured(tmp_path, limit) -> None:
    write(tmp_path, "pyproject.toml", f"[tool.contiglint]\nmax-file-size = {limit}\n")


def test_a_file_over_the_limit_is_an_error_naming_it_and_others_are_checked(tmp_path):
    configured(tmp_path, LIMIT)
    write(tmp_path, "a_bad.py", BAD)
    write(tmp_path, "large.py", LARGE)
    process = contiglint(".", cwd=tmp_path)
    assert process.returncode == 2
    assert f"a_bad.py:{BAD_LINE}:" in process.stdout and "large.py" not in process.stdout
    assert f"large.py:1:1: E903 not checked: the file is {len(LARGE)} bytes, over the " \
           f"max-file-size limit of {LIMIT} bytes" in process.stderr
    assert "Traceback" not in process.stderr


def test_a_fix_leaves_a_file_over_the_limit_as_it_was(tmp_path):
    configured(tmp_path, LIMIT)
    path = write(tmp_path, "large.py", LARGE)
    process = contiglint("--fix", "large.py", cwd=tmp_path)
    assert process.returncode == 2 and " E903 " in process.stderr
    assert path.read_text() == LARGE


def test_zero_means_no_limit(tmp_path):
    configured(tmp_path, 0)
    write(tmp_path, "large.py", LARGE)
    process = contiglint("large.py", cwd=tmp_path)
    assert process.returncode == 1 and "E903" not in process.stderr
    assert f"large.py:{BAD_LINE}:" in process.stdout


def test_a_limit_that_is_not_a_byte_count_is_a_configuration_error(tmp_path):
    configured(tmp_path, '"1MB"')
    write(tmp_path, "a.py", BAD)
    process = contiglint("a.py", cwd=tmp_path)
    assert process.returncode == 2
    assert "max-file-size: must be a number of bytes (0 for no limit), not '1MB'" \
        in process.stderr


def test_the_limit_counts_utf8_bytes_and_a_text_at_it_is_checked():
    text = BAD + "# " + "\u00e9" * 30 + "\n"  # two bytes per character
    size = len(text.encode("utf-8"))
    at_limit = lint_source(text, "u.py", Settings(extend_select=("CTG101",), max_file_size=size))
    assert not at_limit.errors and [f.line for f in at_limit.findings] == [BAD_LINE]
    over = lint_source(text, "u.py", Settings(extend_select=("CTG101",),
                                              max_file_size=size - 1))
    assert over.findings == [] and [e.kind for e in over.errors] == ["limit"]
    assert f"the file is {size} bytes" in over.errors[0].message
    assert len(text) < size - 1  # the characters alone are under the limit

