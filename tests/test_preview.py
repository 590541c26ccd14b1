"""The preview switch, as ruff has it: `--preview` / `preview = true` runs the preview rules that
the selection's prefixes (or `ALL`) name, `--no-preview` overrides the configuration, and a run
says which selected preview rules it did not run. Every run goes through the real command."""
from __future__ import annotations

import json

import pytest

from tests.clitools import (BAD, CLEAN, PREVIEW_BAD, PREVIEW_CODE, PREVIEW_LINE, contiglint,
                            write)
from contiglint.rules import all_rules, registry

PREVIEW = tuple(rule.code for rule in all_rules() if registry.is_preview(rule))
# CTG113 is opt-in by design; `.contiguous()` of a fresh tensor is its finding
REDUNDANT = "import torch\n\nx = torch.randn(2, 3).contiguous()\n"


def codes(*flags: str, cwd) -> set[str]:
    process = contiglint("--format", "json", "--no-cache", *flags, "bad.py", cwd=cwd,
                         defaults=True)
    assert process.returncode in (0, 1), process.stderr
    return {finding["code"] for finding in json.loads(process.stdout)}


@pytest.mark.parametrize("flags, reported", [
    (["--preview"], True),
    (["--select", "CTG", "--preview"], True),
    (["--select", "CTG1", "--preview"], True),
    (["--select", "CTG10", "--preview"], True),
    (["--extend-select", "CTG1", "--preview"], True),
    (["--select", "ALL", "--preview"], True),
    (["--select", "ALL"], False),  # ALL selects the preview rules only with preview, as in ruff
    (["--select", "CTG11", "--preview"], False),  # a prefix that does not name it
    (["--preview", "--ignore", PREVIEW_CODE], False),
    (["--preview", "--no-preview"], False),  # the last of the two wins, as in ruff
    (["--no-preview", "--preview"], True),
])
def test_preview_runs_the_preview_rules_the_selection_names(tmp_path, flags, reported):
    write(tmp_path, "bad.py", PREVIEW_BAD)
    assert PREVIEW_CODE in PREVIEW and PREVIEW_CODE.startswith("CTG10")  # as the cases read it
    assert (PREVIEW_CODE in codes(*flags, cwd=tmp_path)) == reported


def test_select_all_selects_every_rule_opt_in_ones_too(tmp_path):
    write(tmp_path, "bad.py", REDUNDANT)
    assert "CTG113" not in codes(cwd=tmp_path)
    assert "CTG113" not in codes("--preview", cwd=tmp_path)  # opt-in by design: not preview
    assert "CTG113" in codes("--select", "ALL", cwd=tmp_path)
    assert "CTG113" in codes("--select", "all", cwd=tmp_path)
    assert "CTG113" not in codes("--select", "ALL", "--ignore", "CTG11", cwd=tmp_path)


def test_a_selection_of_only_preview_rules_runs_and_names_them_instead_of_failing(tmp_path):
    write(tmp_path, "bad.py", BAD)
    others = ",".join(rule.code for rule in all_rules() if not registry.is_preview(rule))
    process = contiglint("--no-cache", "--select", "CTG", "--ignore", others, "bad.py",
                         cwd=tmp_path, defaults=True)
    assert (process.returncode, process.stdout) == (0, "All checks passed!\n" + not_run(PREVIEW))


def not_run(codes: tuple[str, ...]) -> str:
    return (f"{len(codes)} preview rule{'s' if len(codes) != 1 else ''} not run "
            f"({', '.join(codes)}): use --preview\n")


@pytest.mark.parametrize("flags, skipped", [
    ([], PREVIEW),  # a plain run names every preview rule it did not run
    (["--select", "CTG1"], PREVIEW),
    (["--select", "ALL"], PREVIEW),
    (["--select", "CTG10"], tuple(code for code in PREVIEW if code.startswith("CTG10"))),
    (["--extend-select", PREVIEW_CODE], tuple(code for code in PREVIEW if code != PREVIEW_CODE)),
])
def test_the_summary_names_the_selected_preview_rules_that_did_not_run(tmp_path, flags,
                                                                       skipped):
    write(tmp_path, "clean.py", CLEAN)
    process = contiglint("--no-cache", "--format", "text", *flags, "clean.py", cwd=tmp_path,
                         defaults=True)
    assert (process.returncode, process.stdout, process.stderr) == (
        0, "All checks passed!\n" + not_run(skipped), "")


def test_no_such_line_when_every_selected_rule_ran_or_quiet(tmp_path):
    write(tmp_path, "clean.py", CLEAN)
    outputs = {}
    for flags in ([], ["--preview"], ["--select", "CTG105"], ["--select", PREVIEW_CODE], ["-q"]):
        process = contiglint("--no-cache", *flags, "clean.py", cwd=tmp_path, defaults=True)
        assert process.returncode == 0, process.stderr
        outputs[" ".join(flags)] = "not run" in process.stdout + process.stderr
    assert outputs == {"": True, "--preview": False, "--select CTG105": False,
                       f"--select {PREVIEW_CODE}": False, "-q": False}


def test_after_findings_too_and_in_the_full_format(tmp_path):
    write(tmp_path, "bad.py", BAD)
    process = contiglint("--no-cache", "--format", "full", "--extend-select", PREVIEW_CODE,
                         "bad.py", cwd=tmp_path, defaults=True)
    assert process.returncode == 1
    assert process.stdout.endswith("Found 1 problem (1 fixable with --fix).\n" + not_run(
        tuple(code for code in PREVIEW if code != PREVIEW_CODE)))


@pytest.mark.parametrize("format", ["json", "sarif", "github"])
def test_machine_formats_say_it_on_stderr_never_in_the_data(tmp_path, format):
    write(tmp_path, "bad.py", PREVIEW_BAD)
    process = contiglint("--no-cache", "--format", format, "bad.py", cwd=tmp_path,
                         defaults=True)
    assert process.returncode == 0
    assert process.stderr == "contiglint: warning: " + not_run(PREVIEW)
    assert "not run" not in process.stdout
    if format != "github":
        json.loads(process.stdout)


def test_diff_says_it_on_stderr(tmp_path):
    write(tmp_path, "bad.py", PREVIEW_BAD)
    process = contiglint("--no-cache", "--diff", "bad.py", cwd=tmp_path, defaults=True)
    assert process.returncode == 0 and process.stdout == ""
    assert process.stderr.endswith(not_run(PREVIEW))


def test_preview_in_the_configuration_and_no_preview_over_it(tmp_path):
    write(tmp_path, "bad.py", PREVIEW_BAD)
    write(tmp_path, "pyproject.toml", "[tool.contiglint]\npreview = true\n")
    assert PREVIEW_CODE in codes(cwd=tmp_path)
    assert PREVIEW_CODE not in codes("--no-preview", cwd=tmp_path)
    process = contiglint("--no-cache", "--no-preview", "bad.py", cwd=tmp_path, defaults=True)
    assert process.stdout.endswith(not_run(PREVIEW))


def test_the_cache_tells_preview_runs_apart(tmp_path):
    write(tmp_path, "bad.py", PREVIEW_BAD)
    first = contiglint("--format", "json", "bad.py", cwd=tmp_path, defaults=True)
    second = contiglint("--format", "json", "--preview", "bad.py", cwd=tmp_path,
                        defaults=True)
    assert json.loads(first.stdout) == []
    assert [f["code"] for f in json.loads(second.stdout)] == [PREVIEW_CODE]


@pytest.mark.parametrize("preview", [True, False])
def test_the_language_server_reads_preview_from_the_project(tmp_path, preview):
    pytest.importorskip("pygls")
    from contiglint.server import lint_buffer

    write(tmp_path, "pyproject.toml", f"[tool.contiglint]\npreview = {str(preview).lower()}\n")
    linted = lint_buffer(str(tmp_path / "bad.py"), PREVIEW_BAD, 1)
    assert linted.result.errors == []
    assert [f.code for f in linted.result.findings] == ([PREVIEW_CODE] if preview else [])


def test_the_fixit_pack_reads_preview_from_the_project(tmp_path):
    pytest.importorskip("fixit")
    from tests.test_fixit import fixit

    write(tmp_path, "bad.py", PREVIEW_BAD)
    write(tmp_path, "pyproject.toml", '[tool.fixit]\nenable = ["contiglint.fixit"]\n'
          'disable = ["fixit.rules"]\n\n[tool.contiglint]\npreview = true\n')
    process = fixit("-o", "custom", "--output-template", "{rule_name}", "lint", "bad.py",
                    cwd=tmp_path)
    assert "Traceback" not in process.stderr, process.stderr
    assert process.stdout.split() == [PREVIEW_CODE]


def test_explain_takes_preview_as_the_check_does(tmp_path):
    write(tmp_path, "bad.py", PREVIEW_BAD)
    plain = contiglint("explain", f"bad.py:{PREVIEW_LINE}", cwd=tmp_path, defaults=True)
    preview = contiglint("explain", "--preview", f"bad.py:{PREVIEW_LINE}", cwd=tmp_path,
                         defaults=True)
    assert plain.returncode == 0 and preview.returncode == 0, preview.stderr
    assert f" {PREVIEW_CODE} " not in plain.stdout and f"bad.py:{PREVIEW_LINE}:" in preview.stdout
    assert f" {PREVIEW_CODE} " in preview.stdout
