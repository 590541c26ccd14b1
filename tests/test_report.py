"""Output formats, in process on hand-made findings and through the real CLI."""
from __future__ import annotations

import json

import pytest

from tests.clitools import BAD, BAD_LINE, contiglint, findings_json, write
from contiglint.engine import SourceError
from contiglint.findings import Edit, Finding, Fix, Position, Related
from contiglint.report import ReportContext, github_line, render, sarif, statistics_lines

SAFE = Fix("safe", (Edit(Position(3, 10), Position(3, 14), "reshape"),), "use reshape")
UNSAFE = Fix("unsafe", (Edit(Position(5, 1), Position(5, 1), "x"),), "maybe")
FINDINGS = [
    Finding("a.py", 3, 5, 3, 20, "CTG101", "view on non-contiguous", SAFE,
            (Related(2, 5, "made non-contiguous here"),)),
    Finding("a.py", 5, 1, 5, 9, "CTG101", "again", UNSAFE),
    Finding("b.py", 1, 1, 1, 2, "CTG777", "no fix"),
]
ERRORS = [SourceError("c.py", 4, 7, "cannot parse: invalid syntax", "syntax"),
          SourceError("d.py", 1, 1, "cannot read: Permission denied", "io")]


def test_text_marks_fixable_findings_and_summarises():
    out, err = render("text", FINDINGS, [], ReportContext())
    assert out.splitlines() == [
        "a.py:3:5: CTG101 error: view on non-contiguous [*]",
        "a.py:5:1: CTG101 error: again",
        "b.py:1:1: CTG777 error: no fix",
        "Found 3 problems (1 fixable with --fix).",
        "1 more fix available with --unsafe-fixes.",
    ]
    assert err == ""
    out, _ = render("text", FINDINGS, [], ReportContext(unsafe_fixes=True))
    assert "a.py:5:1: CTG101 error: again [*]" in out and "(2 fixable with --fix)" in out
    two = FINDINGS[1:2] * 2
    out, _ = render("text", two, [], ReportContext())
    assert "2 more fixes available with --unsafe-fixes." in out


def test_text_errors_go_to_stderr_with_flake8_style_codes():
    out, err = render("text", [], ERRORS, ReportContext())
    assert "All checks passed!" not in out
    assert err.splitlines()[:2] == ["c.py:4:7: E999 cannot parse: invalid syntax",
                                    "d.py:1:1: E902 cannot read: Permission denied"]


def test_text_after_fix_counts_fixed_and_remaining():
    out, _ = render("text", FINDINGS[2:], [], ReportContext("fix", fixed=2, changed_files=1))
    assert out.splitlines()[-1] == "Found 3 problems (2 fixed, 1 remaining)."
    out, _ = render("text", [], [], ReportContext("fix", fixed=1, changed_files=1))
    assert out == "Found 1 problem (1 fixed, 0 remaining).\n"


def test_json_lists_findings_then_errors_in_one_schema():
    out, _ = render("json", FINDINGS, ERRORS, ReportContext())
    data = json.loads(out)
    keys = ["path", "line", "column", "end_line", "end_column", "code", "severity", "message",
            "fix", "related", "witness"]
    assert all(list(item) == keys for item in data)
    assert [item["severity"] for item in data] == ["error"] * 5
    assert data[0]["fix"]["edits"][0] == {"line": 3, "column": 10, "end_line": 3,
                                          "end_column": 14, "content": "reshape"}
    assert data[0]["related"] == [{"line": 2, "column": 5, "message": "made non-contiguous here"}]
    assert [item["code"] for item in data[3:]] == ["E999", "E902"]


def test_github_annotations_escape_their_data():
    line = github_line("dir/a,b.py", 3, 5, 3, 20, "CTG101", "50% of\nit: here")
    assert line == ("::error file=dir/a%2Cb.py,line=3,col=5,endLine=3,endColumn=20,"
                    "title=CTG101::50%25 of%0Ait: here\n")


def test_sarif_is_2_1_0_with_related_locations_and_notifications():
    log = sarif(FINDINGS, ERRORS)
    assert log["version"] == "2.1.0"
    run = log["runs"][0]
    assert {rule["id"] for rule in run["tool"]["driver"]["rules"]} >= {"CTG101"}
    first = run["results"][0]
    assert first["ruleId"] == "CTG101"
    assert run["tool"]["driver"]["rules"][first["ruleIndex"]]["id"] == "CTG101"
    region = first["locations"][0]["physicalLocation"]["region"]
    assert region == {"startLine": 3, "startColumn": 5, "endLine": 3, "endColumn": 20}
    assert first["relatedLocations"][0]["message"]["text"] == "made non-contiguous here"
    assert "ruleIndex" not in run["results"][2]  # CTG777 is not a known rule
    invocation = run["invocations"][0]
    assert invocation["executionSuccessful"] is False
    assert [n["descriptor"]["id"] for n in invocation["toolExecutionNotifications"]] == \
        ["E999", "E902"]


def test_statistics_counts_per_code_most_frequent_first():
    lines = statistics_lines(FINDINGS)
    assert [line.split()[:2] for line in lines] == [["2", "CTG101"], ["1", "CTG777"]]
    assert "[*]" in lines[0] and "[*]" not in lines[1]


# --- the same formats through the real command ------------------------------------------------

def test_cli_json_sarif_and_github_agree_on_positions(tmp_path):
    write(tmp_path, "bad.py", BAD)
    finding = next(f for f in findings_json("bad.py", cwd=tmp_path) if f["code"] == "CTG101")
    assert (finding["path"], finding["line"]) == ("bad.py", BAD_LINE)
    assert finding["fix"]["safety"] == "safe"

    process = contiglint("--format", "sarif", "bad.py", cwd=tmp_path)
    assert process.returncode == 1
    result = next(r for r in json.loads(process.stdout)["runs"][0]["results"]
                  if r["ruleId"] == "CTG101")
    region = result["locations"][0]["physicalLocation"]["region"]
    assert (region["startLine"], region["startColumn"], region["endLine"],
            region["endColumn"]) == (finding["line"], finding["column"], finding["end_line"],
                                     finding["end_column"])

    process = contiglint("--format", "github", "bad.py", cwd=tmp_path)
    assert process.returncode == 1
    assert (f"::error file=bad.py,line={finding['line']},col={finding['column']},"
            f"endLine={finding['end_line']},endColumn={finding['end_column']},"
            f"title=CTG101::") in process.stdout


@pytest.mark.parametrize("fmt", ["json", "sarif", "github"])
def test_cli_machine_formats_include_syntax_errors(tmp_path, fmt):
    write(tmp_path, "broken.py", "import torch\ntorch.randn(2).view(\n")
    process = contiglint("--format", fmt, "broken.py", cwd=tmp_path)
    assert process.returncode == 2
    assert "E999" in process.stdout and "broken.py" in process.stdout


def test_cli_statistics_names_the_rule(tmp_path):
    write(tmp_path, "a.py", BAD)
    write(tmp_path, "b.py", BAD)
    process = contiglint("--statistics", ".", cwd=tmp_path)
    assert process.returncode == 1
    first = process.stdout.splitlines()[0].split()
    assert first[:3] == ["2", "CTG101", "[*]"] and len(first) == 4  # ... and the rule name


def test_cli_every_format_says_each_findings_severity(tmp_path):
    """An error (CTG101) and a warning (CTG113) in one file: json and text carry the severity
    word, sarif its level, github the annotation's command; errors are errors everywhere."""
    write(tmp_path, "both.py", BAD + "z = torch.randn(2, 3).contiguous()\n")
    write(tmp_path, "broken.py", "x = (\n")
    select = ("--select", "CTG101,CTG113", "both.py", "broken.py")
    data = json.loads(contiglint("--format", "json", *select, cwd=tmp_path).stdout)
    assert [(item["code"], item["severity"]) for item in data] == [
        ("CTG101", "error"), ("CTG113", "warning"), ("E999", "error")]
    text = contiglint("--format", "text", *select, cwd=tmp_path).stdout
    assert ": CTG101 error: " in text and ": CTG113 warning: " in text
    run = json.loads(contiglint("--format", "sarif", *select, cwd=tmp_path).stdout)["runs"][0]
    assert [(r["ruleId"], r["level"]) for r in run["results"]] == [
        ("CTG101", "error"), ("CTG113", "warning")]
    assert [n["level"] for n in run["invocations"][0]["toolExecutionNotifications"]] == ["error"]
    github = contiglint("--format", "github", *select, cwd=tmp_path).stdout.splitlines()
    assert [(line.split()[0], line.split("title=")[1].split("::")[0]) for line in github] == [
        ("::error", "CTG101"), ("::warning", "CTG113"), ("::error", "E999")]
