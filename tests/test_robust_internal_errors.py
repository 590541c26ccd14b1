"""A bug in one rule, in the flow pass or anywhere in processing one file is reported as E900
with the rule code, the file and a request to report it; other rules and files go on."""
from __future__ import annotations

from contiglint import cli
from contiglint.engine import lint_source
from contiglint.rules import registry
from contiglint.rules.base import Rule
from contiglint.runner import RunOptions, run
from tests.clitools import BAD, BAD_LINE, EXAMPLE_CONFIG, EXAMPLE_SELECT, FIXED


class CrashingRule(Rule):
    """Reads the same sinks as CTG101 and fails on every one."""

    code = "CTG999"
    name = "crashes-on-purpose"
    summary = "a rule with a bug, for this test"
    sinks = frozenset({"view"})

    def check(self, sink, ctx):
        raise ValueError("boom")
        yield  # a generator, like real rules


def with_crashing_rule(monkeypatch):
    """Register CTG999 as a stable rule (the registry's table, rules/registry.py)."""
    real = registry.entries()
    monkeypatch.setattr(registry, "entries",
                        lambda: real + (registry.Entry("CTG999", CrashingRule, "stable"),))


def test_crashing_rule_is_reported_and_other_rules_still_run(monkeypatch):
    with_crashing_rule(monkeypatch)
    result = lint_source(BAD, "model.py", EXAMPLE_CONFIG.settings)
    assert [(f.code, f.line) for f in result.findings] == [("CTG101", BAD_LINE)]
    [error] = result.errors
    assert (error.path, error.kind) == ("model.py", "internal")
    assert "CTG999" in error.message and "ValueError: boom" in error.message
    assert "please report this bug" in error.message


def test_crashing_rule_does_not_stop_other_files_serial_or_in_workers(tmp_path, monkeypatch):
    with_crashing_rule(monkeypatch)
    for number in range(10):  # enough files for the worker pool (forked: the patch carries)
        (tmp_path / f"m{number}.py").write_text(BAD)
    for jobs in (1, 2):
        result = run([str(tmp_path)], EXAMPLE_CONFIG, RunOptions(jobs=jobs))
        assert len(result.findings) == 10 and len(result.all_errors) == 10
        assert {e.path for e in result.all_errors} == {f.path for f in result.findings}


def test_cli_exits_2_names_rule_and_file_and_keeps_findings(tmp_path, monkeypatch, capsys):
    with_crashing_rule(monkeypatch)
    (tmp_path / "model.py").write_text(BAD)
    code = cli.main([*EXAMPLE_SELECT, "--no-cache", str(tmp_path / "model.py")])
    out, err = capsys.readouterr()
    assert code == 2
    assert f"model.py:{BAD_LINE}:22: CTG101" in out
    assert "model.py:1:1: E900 internal error in CTG999: ValueError: boom" in err
    assert "Traceback" not in err


def test_crash_in_flow_analysis_is_per_file(tmp_path, monkeypatch):
    (tmp_path / "a.py").write_text(BAD)
    (tmp_path / "b.py").write_text(BAD.replace("x = ", "xx = ").replace("x.", "xx."))
    real = __import__("contiglint.engine", fromlist=["analyze_module"]).analyze_module

    def crash_on_b(tree, source, *context):
        if "xx" in source.text:
            raise KeyError("state")
        return real(tree, source, *context)

    monkeypatch.setattr("contiglint.engine.analyze_module", crash_on_b)
    result = run([str(tmp_path)], EXAMPLE_CONFIG, RunOptions(jobs=1))
    assert [f.path.endswith("a.py") for f in result.findings] == [True]
    [error] = result.all_errors
    assert error.path.endswith("b.py") and "internal error in flow analysis: KeyError" \
        in error.message


def test_crash_in_a_contract_summary_is_per_file(tmp_path, monkeypatch):
    """A bug in the contract summary of one module of a project run (which CTG114, a
    default rule, reads) is that file's internal error; the run and the other files go on."""
    guarded = "\n\ndef kernel(t):\n    assert t.is_contiguous()\n    return t\n"
    (tmp_path / "a.py").write_text(BAD + guarded)
    (tmp_path / "b.py").write_text(BAD.replace("x = ", "xx = ").replace("x.", "xx.") + guarded)
    from contiglint.layout.contracts import summary

    real = summary.summarize

    def crash_on_b(tree, module, path, *args, **kwargs):
        if path.endswith("b.py"):
            raise KeyError("forward")
        return real(tree, module, path, *args, **kwargs)

    monkeypatch.setattr("contiglint.project_pass.summarize", crash_on_b)
    monkeypatch.setattr("contiglint.layout.contracts.project.summarize", crash_on_b)
    result = run([str(tmp_path)], EXAMPLE_CONFIG, RunOptions(jobs=1))
    assert [f.path.endswith("a.py") for f in result.findings] == [True]
    [error] = result.all_errors
    assert error.path.endswith("b.py") and "KeyError" in error.message


def test_crash_while_fixing_one_file_leaves_it_and_fixes_the_others(tmp_path, monkeypatch):
    (tmp_path / "a.py").write_text(BAD)
    (tmp_path / "b.py").write_text(BAD)
    import contiglint.runner as runner
    real = runner.fix_source

    def crash_on_b(text, path, *args, **kwargs):
        if path.endswith("b.py"):
            raise RuntimeError("fixer bug")
        return real(text, path, *args, **kwargs)

    monkeypatch.setattr(runner, "fix_source", crash_on_b)
    result = run([str(tmp_path)], EXAMPLE_CONFIG, RunOptions("fix", jobs=1))
    assert (tmp_path / "a.py").read_text() == FIXED and (tmp_path / "b.py").read_text() == BAD
    [error] = result.all_errors
    assert error.kind == "internal" and "RuntimeError: fixer bug" in error.message
    assert "please report this bug" in error.message
