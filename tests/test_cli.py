"""The real `contiglint` command, run in a subprocess: findings, fixes, flags and exit codes."""
from __future__ import annotations

import json

import pytest

from tests.clitools import BAD, BAD_LINE, CLEAN, FIXED, VIEW_BUG, codes_by_line, contiglint, \
    EXAMPLE_NOT_RUN, PREVIEW_BAD, PREVIEW_CODE, findings_json, write


def test_view_after_transpose_is_reported_on_its_line(tmp_path):
    write(tmp_path, "example.py", VIEW_BUG)
    findings = findings_json("example.py", cwd=tmp_path)
    assert ("example.py", 2, "CTG101") in codes_by_line(findings)
    assert all(f["line"] == 2 for f in findings if f["code"] == "CTG101")


def test_text_output_and_exit_code_1_for_findings(tmp_path):
    write(tmp_path, "bad.py", BAD)
    process = contiglint("bad.py", cwd=tmp_path)
    assert process.returncode == 1
    first = process.stdout.splitlines()[0]
    assert first.startswith(f"bad.py:{BAD_LINE}:") and " CTG101 " in first
    assert first.endswith(" [*]")  # the .view -> .reshape fix is safe
    assert "Found 1 problem (1 fixable with --fix)." in process.stdout


def test_clean_file_passes_with_exit_0(tmp_path):
    write(tmp_path, "clean.py", CLEAN)
    process = contiglint("clean.py", cwd=tmp_path)
    assert (process.returncode, process.stdout) == (0, "All checks passed!\n" + EXAMPLE_NOT_RUN)


def test_quiet_prints_findings_but_no_summary(tmp_path):
    write(tmp_path, "bad.py", BAD)
    write(tmp_path, "clean.py", CLEAN)
    process = contiglint("-q", ".", cwd=tmp_path)
    assert process.returncode == 1
    assert "Found" not in process.stdout and process.stdout.count("CTG101") == 1
    assert contiglint("-q", "clean.py", cwd=tmp_path).stdout == ""


def test_exit_zero_keeps_findings_but_exits_0(tmp_path):
    write(tmp_path, "bad.py", BAD)
    process = contiglint("--exit-zero", "bad.py", cwd=tmp_path)
    assert process.returncode == 0 and "CTG101" in process.stdout


def test_fix_rewrites_file_and_is_idempotent(tmp_path):
    path = write(tmp_path, "bad.py", BAD)
    process = contiglint("--fix", "bad.py", cwd=tmp_path)
    assert process.returncode == 0, process.stdout + process.stderr
    assert "1 fixed, 0 remaining" in process.stdout
    assert path.read_text() == FIXED
    again = contiglint("--fix", "bad.py", cwd=tmp_path)
    assert again.returncode == 0 and path.read_text() == FIXED
    assert "All checks passed!" in again.stdout


@pytest.mark.parametrize("encoding, prefix, newline", [
    ("utf-8", b"\xef\xbb\xbf", "\r\n"),
    ("latin-1", b"# -*- coding: latin-1 -*-\n", "\n"),
])
def test_fix_keeps_encoding_bom_and_line_endings(tmp_path, encoding, prefix, newline):
    body = BAD.replace("import torch", "import torch  # caf\u00e9")
    path = tmp_path / "bad.py"
    path.write_bytes(prefix + body.replace("\n", newline).encode(encoding))
    assert contiglint("--fix", "bad.py", cwd=tmp_path).returncode == 0
    expected = FIXED.replace("import torch", "import torch  # caf\u00e9")
    assert path.read_bytes() == prefix + expected.replace("\n", newline).encode(encoding)


def test_diff_prints_changes_writes_nothing_and_exits_1(tmp_path):
    path = write(tmp_path, "bad.py", BAD)
    process = contiglint("--diff", "bad.py", cwd=tmp_path)
    assert process.returncode == 1
    assert path.read_text() == BAD
    assert process.stdout.startswith("--- a/bad.py\n+++ b/bad.py\n")
    assert "-y = x.transpose(1, 2).view(2, 12)\n+y = x.transpose(1, 2).reshape(2, 12)\n" \
        in process.stdout
    assert "Would fix 1 problem in 1 file." in process.stderr
    write(tmp_path, "clean.py", CLEAN)
    clean = contiglint("--diff", "clean.py", cwd=tmp_path)
    assert (clean.returncode, clean.stdout) == (0, "")


def test_diff_reports_errors_on_stderr_whatever_the_format(tmp_path):
    write(tmp_path, "broken.py", "import torch\ntorch.randn(2).view(\n")
    process = contiglint("--diff", "--format", "json", "broken.py", cwd=tmp_path)
    assert process.returncode == 2 and process.stdout == ""
    assert "broken.py:2:" in process.stderr and "E999" in process.stderr


@pytest.mark.parametrize("flags, reported", [
    ([], True),
    (["--select", "CTG101"], True),
    (["--select", "CTG1"], True),
    (["--ignore", "CTG101"], False),
    (["--ignore", "ctg1"], False),
    (["--select", "CTG1", "--ignore", "CTG101"], False),
    (["--select", "CTG11"], False),
    (["--select", "CTG11", "--extend-select", "CTG101"], True),
])
def test_select_and_ignore_flags(tmp_path, flags, reported):
    write(tmp_path, "bad.py", BAD)
    findings = findings_json(*flags, "bad.py", cwd=tmp_path)
    assert any(f["code"] == "CTG101" for f in findings) == reported


@pytest.mark.parametrize("flags, reported", [
    ([], False),
    (["--select", "CTG"], False),
    (["--select", "CTG1"], False),
    (["--select", PREVIEW_CODE], True),
    (["--extend-select", PREVIEW_CODE], True),
    (["--extend-select", PREVIEW_CODE, "--ignore", PREVIEW_CODE], False),
])
def test_preview_rules_run_only_when_selected_by_full_code(tmp_path, flags, reported):
    """A preview rule's measured precision on real code is below the policy: without
    --preview it does not run by default, nor through a prefix, only when its own code is
    selected (tests/test_preview.py: with it)."""
    write(tmp_path, "bad.py", PREVIEW_BAD)
    process = contiglint("--format", "json", "--no-cache", *flags, "bad.py", cwd=tmp_path,
                         defaults=True)
    assert any(f["code"] == PREVIEW_CODE for f in json.loads(process.stdout)) == reported


def test_noqa_comments_suppress_only_their_codes(tmp_path):
    write(tmp_path, "all.py", BAD.replace("view(2, 12)", "view(2, 12)  # noqa"))
    write(tmp_path, "own.py", BAD.replace("view(2, 12)", "view(2, 12)  # noqa: CTG101"))
    write(tmp_path, "other.py", BAD.replace("view(2, 12)", "view(2, 12)  # noqa: CTG999"))
    write(tmp_path, "skip.py", "# contiglint: skip-file\n" + BAD)
    flagged = {name for name, _, code in codes_by_line(findings_json(".", cwd=tmp_path))
               if code == "CTG101"}
    assert flagged == {"other.py"}


def test_skip_file_is_a_comment_of_its_own_line_only(tmp_path):
    """As ruff reads `# ruff: noqa`: the directive alone on its line (indented, or followed
    by another comment) skips the file; after code, or quoted in another comment, it skips
    nothing."""
    skipped = {"own.py": "# contiglint: skip-file\n",
               "indented.py": "if True:\n    # contiglint: skip-file  # generated\n    pass\n"}
    kept = {"trailing.py": 'x = 1  # TODO: maybe "# contiglint: skip-file" later\n',
            "after_code.py": "x = 1  # contiglint: skip-file\n",
            "quoted.py": '# TODO: maybe "# contiglint: skip-file" later\n',
            "longer.py": "# contiglint: skip-files-later\n",
            "in_string.py": 's = """\n# contiglint: skip-file\n"""\n'}
    for name, text in {**skipped, **kept}.items():
        write(tmp_path, name, text + BAD)
    flagged = {name for name, _, code in codes_by_line(findings_json(".", cwd=tmp_path))
               if code == "CTG101"}
    assert flagged == set(kept)


def test_stdin_with_filename(tmp_path):
    process = contiglint("-", "--stdin-filename", "pkg/model.py", cwd=tmp_path, stdin=BAD)
    assert process.returncode == 1
    assert process.stdout.startswith(f"pkg/model.py:{BAD_LINE}:")
    clean = contiglint("-", cwd=tmp_path, stdin=CLEAN)
    assert clean.returncode == 0


def test_stdin_fix_prints_fixed_code_on_stdout(tmp_path):
    process = contiglint("--fix", "-", cwd=tmp_path, stdin=BAD)
    assert process.returncode == 0
    assert process.stdout == FIXED
    assert "1 fixed" in process.stderr


def test_syntax_error_is_reported_and_other_files_still_checked(tmp_path):
    write(tmp_path, "a_bad.py", BAD)
    write(tmp_path, "broken.py", "import torch\nx = torch.randn(2).view(\ndef f(:\n")
    process = contiglint(".", cwd=tmp_path)
    assert process.returncode == 2
    assert f"a_bad.py:{BAD_LINE}:" in process.stdout
    error = [line for line in process.stderr.splitlines() if line.startswith("broken.py:")]
    assert len(error) == 1 and " E999 cannot parse" in error[0]
    assert error[0].split(":")[1] in ("2", "3")  # the line of the syntax error


def test_undecodable_and_missing_files_are_io_errors(tmp_path):
    (tmp_path / "latin.py").write_bytes(b"x = '\xe9'.view(1)\n")
    process = contiglint("latin.py", "missing.py", cwd=tmp_path)
    assert process.returncode == 2
    assert "Traceback" not in process.stderr
    assert "latin.py:1:1: E902 cannot decode: byte 0xe9 is not valid utf-8" in process.stderr
    assert "missing.py:1:1: E902 cannot read: No such file or directory" in process.stderr


@pytest.mark.parametrize("args, expected", [
    (["--bogus"], "unrecognized arguments: --bogus"),
    (["--format", "xml"], "invalid choice: 'xml'"),
    (["--select", "E501"], "'E501' is not a contiglint code"),
    (["--jobs", "0"], "must be at least 1"),
    (["-", "x.py"], "cannot be combined"),
])
def test_usage_errors_exit_2_with_one_clear_line(tmp_path, args, expected):
    process = contiglint(*args, cwd=tmp_path)
    assert process.returncode == 2
    assert expected in process.stderr.splitlines()[-1]
    assert "Traceback" not in process.stderr


def test_version():
    process = contiglint("--version", cwd=".")
    assert process.returncode == 0 and process.stdout.startswith("contiglint 0.")


def test_rules_table_and_rule_documentation(tmp_path):
    table = contiglint("rules", cwd=tmp_path)
    assert table.returncode == 0
    header, *rows = table.stdout.splitlines()
    assert header.split()[:4] == ["CODE", "NAME", "FIX", "SEVERITY"]
    row = next(row for row in rows if row.startswith("CTG104 "))
    assert row.split()[2:4] == ["safe", "warning"]
    doc = contiglint("rule", "ctg101", cwd=tmp_path)
    assert doc.returncode == 0 and doc.stdout.startswith("CTG101 (")
    assert ".reshape" in doc.stdout
    unknown = contiglint("rule", "CTG999", cwd=tmp_path)
    assert unknown.returncode == 2 and "unknown rule 'CTG999'" in unknown.stderr


def test_rule_documentation_by_name_as_by_code(tmp_path):
    """`contiglint rule NAME` prints what `contiglint rule CODE` prints (runtime rules too),
    `--all` prints every rule's; a value that names no rule is an error naming it."""
    from contiglint.rules import all_rules
    from contiglint.runtime.codes import NAMES

    for code, name in [("CTG101", "view-on-noncontiguous"), ("CTG201", NAMES["CTG201"])]:
        by_code, by_name = (contiglint("rule", value, cwd=tmp_path) for value in (code, name))
        assert by_name.returncode == 0, by_name.stderr
        assert by_name.stdout == by_code.stdout and by_name.stdout.startswith(f"{code} ({name})")
    every = contiglint("rule", "--all", cwd=tmp_path)
    assert every.returncode == 0
    headers = [line.split()[0] for line in every.stdout.splitlines() if line.startswith("CTG")
               and " (" in line]
    assert headers == [rule.code for rule in all_rules()] + list(NAMES)
    assert contiglint("rule", "CTG114", cwd=tmp_path).stdout in every.stdout
    typo = contiglint("rule", "view-on-noncontigous", cwd=tmp_path)
    assert typo.returncode == 2 and typo.stdout == ""
    assert "unknown rule 'view-on-noncontigous'" in typo.stderr
    assert "did you mean view-on-noncontiguous?" in typo.stderr
    for argv in (("rule",), ("rule", "--all", "CTG101")):
        neither = contiglint(*argv, cwd=tmp_path)
        assert neither.returncode == 2 and "code or name, or --all" in neither.stderr


def test_check_subcommand_is_an_alias(tmp_path):
    """`contiglint check ARGS` is `contiglint ARGS`: the same findings, output and status."""
    write(tmp_path, "bad.py", BAD)
    write(tmp_path, "clean.py", CLEAN)
    outputs = []
    for args in (["bad.py", "clean.py"], ["--format", "json", "--statistics", "bad.py"],
                 ["clean.py"]):
        alias = contiglint("check", "--no-cache", *args, cwd=tmp_path)
        plain = contiglint("--no-cache", *args, cwd=tmp_path)
        assert (alias.returncode, alias.stdout, alias.stderr) == \
            (plain.returncode, plain.stdout, plain.stderr), args
        outputs.append(alias)
    text, machine, clean = outputs
    assert text.returncode == 1 and text.stdout.startswith(f"bad.py:{BAD_LINE}:")
    assert " CTG101 " in text.stdout and "clean.py" not in text.stdout
    assert machine.returncode == 1 and "CTG101" in machine.stdout
    assert clean.returncode == 0 and "All checks passed!" in clean.stdout


def test_delegated_subcommands(tmp_path, monkeypatch, capsys):
    from contiglint import cli

    write(tmp_path, "fake_ok.py", "def main(argv):\n    print('args', argv)\n    return 3\n")
    write(tmp_path, "fake_needs_torch.py",
          "raise ModuleNotFoundError(\"No module named 'torch'\", name='torch')\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setitem(cli.DELEGATES, "verify", "fake_ok")
    monkeypatch.setitem(cli.DELEGATES, "run", "fake_needs_torch")
    assert cli.main(["verify", "--x", "y"]) == 3
    assert "args ['--x', 'y']" in capsys.readouterr().out
    assert cli.main(["run", "a.py"]) == 2
    assert "needs PyTorch" in capsys.readouterr().err
    monkeypatch.setitem(cli.DELEGATES, "run", "contiglint.no_such_module.cli")
    assert cli.main(["run"]) == 2
    assert "not available in this installation" in capsys.readouterr().err
