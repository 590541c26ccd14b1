"""The first ten minutes of a user's life, through the real command in a subprocess: every bug
found by trying each documented feature, and the ruff-style features (full format, colour,
severities, --output-file, --show-fixes, --add-noqa, --watch, progress, .gitignore, cache)."""
from __future__ import annotations

import json
import os
import pty
import queue
import re
import select
import shutil
import signal
import subprocess
import sys
import threading
import time
from importlib.metadata import entry_points
from pathlib import Path

import pytest

from tests.clitools import BAD, BAD_LINE, CLEAN, EXAMPLE_SELECT, FIXED, ROOT, contiglint, \
    environment, findings_json, write
from contiglint.rules import all_rules, registry, rule_by_code

# `import torch` fails as it does where torch is not installed (ModuleNotFoundError).
NO_TORCH = """\
import sys

class _NoTorch:
    def find_spec(self, name, path=None, target=None):
        if name == "torch" or name.startswith("torch."):
            raise ModuleNotFoundError(f"No module named {name!r}", name=name)
        return None

sys.meta_path.insert(0, _NoTorch())
"""
UNSAFE_ONLY = ("import torch\n\nw = torch.randn(4, 4).t()\nfor i in range(3):\n"
               "    y = w.contiguous()\nfor j in range(3):\n    z = w.contiguous()\n")
ANSI = re.compile(r"\x1b\[[0-9;]*m")


def without_torch(tmp_path: Path) -> dict:
    write(tmp_path / "no_torch", "sitecustomize.py", NO_TORCH)
    env = environment()
    env["PYTHONPATH"] = os.pathsep.join([str(tmp_path / "no_torch"), env["PYTHONPATH"]])
    return env


def run_python(args, cwd, env=None, **kwargs):
    return subprocess.run([sys.executable, *args], cwd=cwd, env=env or environment(),
                          capture_output=True, text=True, timeout=300, **kwargs)


# --- 1. without torch: one line naming the extra, exit 2 ------------------------------------

@pytest.mark.parametrize("args, extra", [
    (["-m", "contiglint", "verify"], "contiglint[verify]"),
    (["-m", "contiglint", "run", "bad.py"], "contiglint[runtime]"),
    (["-m", "contiglint.runtime", "bad.py"], "contiglint[runtime]"),
])
def test_torch_subcommands_without_torch_say_which_extra(tmp_path, args, extra):
    write(tmp_path, "bad.py", BAD)
    process = run_python(args, tmp_path, without_torch(tmp_path))
    assert process.returncode == 2, process.stderr
    assert "Traceback" not in process.stderr
    assert len(process.stderr.strip().splitlines()) == 1 and extra in process.stderr


def test_pytest_runtime_option_without_torch_says_which_extra(tmp_path):
    write(tmp_path, "test_a.py", "def test_a():\n    pass\n")
    installed = any(ep.name == "contiglint" for ep in entry_points(group="pytest11"))
    plugin = [] if installed else ["-p", "contiglint.runtime.pytest_plugin"]
    process = run_python(["-m", "pytest", "-q", *plugin, "--contiglint-runtime", "test_a.py"],
                         tmp_path, without_torch(tmp_path))
    output = process.stdout + process.stderr
    assert process.returncode == 2, output
    assert "INTERNALERROR" not in output and "Traceback" not in output
    assert "contiglint[runtime]" in output


# --- 2. plural -----------------------------------------------------------------------------

def test_summary_pluralises_fixes(tmp_path):
    write(tmp_path, "unsafe.py", UNSAFE_ONLY)
    process = contiglint("--no-cache", "unsafe.py", cwd=tmp_path)
    assert "2 more fixes available with --unsafe-fixes." in process.stdout, process.stdout
    assert "fixs" not in process.stdout


# --- 3. unknown codes are errors, everywhere ------------------------------------------------

@pytest.mark.parametrize("args, config, named", [
    (["--select", "CTG999"], None, "CTG999"),
    (["--select", ""], None, "--select"),
    (["--ignore", "CTG9"], None, "CTG9"),
    (["--extend-select", "CTG3"], None, "CTG3"),
    (["--select", "CTG2"], None, "selects no rule"),
    ([], "select = ['CTG999']", "CTG999"),
    ([], "[tool.contiglint.per-file-ignores]\n'tests/*' = ['CTG9']", "CTG9"),
])
def test_unknown_codes_are_errors_naming_them(tmp_path, args, config, named):
    write(tmp_path, "bad.py", BAD)
    if config is not None:
        write(tmp_path, "pyproject.toml", "[tool.contiglint]\n" + config + "\n")
    process = contiglint(*args, "bad.py", cwd=tmp_path)
    assert process.returncode == 2, process.stdout + process.stderr
    assert named in process.stderr and len(process.stderr.splitlines()) == 1


def test_known_prefixes_and_runtime_codes_are_accepted(tmp_path):
    write(tmp_path, "bad.py", BAD)
    write(tmp_path, "pyproject.toml", "[tool.contiglint]\nignore = ['CTG201']\n")
    assert contiglint("--select", "CTG1", "--extend-select", "CTG101", "bad.py",
                      cwd=tmp_path).returncode == 1


# --- 4. rule option values ------------------------------------------------------------------

def test_bad_option_value_names_file_table_and_key(tmp_path):
    write(tmp_path, "bad.py", BAD)
    write(tmp_path, "pyproject.toml", "[tool.contiglint.CTG101]\nfix-style = 'rehsape'\n")
    process = contiglint("bad.py", cwd=tmp_path)
    assert process.returncode == 2
    line = process.stderr.strip()
    assert "pyproject.toml" in line and "[tool.contiglint.CTG101]" in line
    assert "fix-style" in line and "'rehsape'" in line and "'contiguous-view'" in line


def test_every_declared_option_default_is_one_of_its_values():
    for rule in all_rules():
        for name, option in rule.options.items():
            assert option.problem(option.default) is None, (rule.code, name)


# --- 5. verify --device cuda without CUDA ---------------------------------------------------

def test_verify_cuda_without_cuda_is_one_line_exit_2(tmp_path):
    torch = pytest.importorskip("torch")
    if torch.cuda.is_available():
        pytest.skip("this machine has CUDA")
    process = contiglint("verify", "--device", "cuda", str(ROOT / "fixtures" / "CTG101"),
                         cwd=tmp_path)
    assert process.returncode == 2
    lines = [line for line in process.stderr.splitlines() if line.startswith("contiglint")]
    assert len(lines) == 1 and "CUDA is not available" in lines[0], process.stderr
    assert process.stdout == ""


# --- 6. help of the subcommands -------------------------------------------------------------

@pytest.mark.parametrize("command", ["rules", "rule"])
def test_rules_and_rule_have_help(tmp_path, command):
    process = contiglint(command, "--help", cwd=tmp_path)
    assert process.returncode == 0 and process.stdout.startswith("usage: contiglint " + command)


# --- 8, 9, 10. the rule catalogue: runtime codes, fix safety, defaults ----------------------

def rules_table(tmp_path) -> dict[str, list[str]]:
    process = contiglint("rules", cwd=tmp_path)
    assert process.returncode == 0
    header, *rows = process.stdout.splitlines()
    return {row.split()[0]: row.split(None, 4) for row in rows}


def test_runtime_codes_are_documented_rules(tmp_path):
    table = rules_table(tmp_path)
    for code in ("CTG201", "CTG202"):
        assert "(runtime" in table[code][4]
        doc = contiglint("rule", code, cwd=tmp_path)
        assert doc.returncode == 0 and doc.stdout.startswith(code) and "contiglint run" in \
            doc.stdout


def readme_rule_rows() -> dict[str, list[str]]:
    rows = {}
    for line in (ROOT / "README.md").read_text(encoding="utf-8").splitlines():
        match = re.match(r"\| (CTG1\d\d) \| (.*) \|", line)
        if match:
            rows[match.group(1)] = [cell.strip() for cell in line.strip("|").split("|")]
    return rows


def test_fix_safety_is_the_same_in_registry_table_docs_and_readme(tmp_path):
    table, readme = rules_table(tmp_path), readme_rule_rows()
    assert set(readme) == {rule.code for rule in all_rules()}
    label = {"safe": "safe", "unsafe": "unsafe", "safe or unsafe": "safe/unsafe"}
    for rule in all_rules():
        assert table[rule.code][2] == label[rule.fix_safety], rule.code
        fix_cell = readme[rule.code][-1]
        said = {word for word in ("safe", "unsafe") if re.search(rf"\b{word}\b", fix_cell)}
        expected = {"safe or unsafe": {"safe", "unsafe"}}.get(rule.fix_safety,
                                                              {rule.fix_safety})
        assert said == expected, (rule.code, fix_cell)
        doc = contiglint("rule", rule.code, cwd=tmp_path).stdout.splitlines()[1]
        assert "fix: " + rule.fix_safety.split(" or ")[0] in doc, (rule.code, doc)


def test_documented_default_matches_the_registry_and_behaviour(tmp_path):
    readme = readme_rule_rows()
    for entry in registry.entries():
        rule = entry.rule
        doc = contiglint("rule", rule.code, cwd=tmp_path).stdout
        header, body = doc.splitlines()[1], doc.split("\n", 2)[2]
        assert ("opt-in" in header) == entry.opt_in, (rule.code, header)
        assert ("runs by default" in header) == (not entry.opt_in), (rule.code, header)
        assert bool(re.search(r"\bopt-in\b", body, re.I)) == entry.opt_in, rule.code
        assert ("(opt-in)" in readme[rule.code][1]) == entry.opt_in, rule.code
    # CTG104's documentation once said "Opt-in" while it ran by default: a plain run reports
    # it exactly when the registry says it runs by default, and selecting it always does.
    write(tmp_path, "move.py", "import torch\nx = torch.randn(2, 3, 4).permute(2, 0, 1)\n"
                               "y = x.cuda()\nz = y.view(-1)\n")
    plain = any(f["code"] == "CTG104" for f in findings_json("move.py", cwd=tmp_path))
    assert plain == (not registry.entry(rule_by_code("CTG104")).opt_in)
    assert any(f["code"] == "CTG104" for f in findings_json("--extend-select", "CTG104",
                                                            "move.py", cwd=tmp_path))


# --- 12. multi-line chains: position and noqa -----------------------------------------------

CHAIN = ("import torch\n\nx = torch.randn(2, 3, 4)\n"
         "y = (\n    x.transpose(1, 2)\n    .view(2, 12)\n){noqa}\n")


def test_multiline_chain_points_at_the_sink_and_honours_noqa_on_its_last_line(tmp_path):
    write(tmp_path, "chain.py", CHAIN.format(noqa=""))
    [finding] = [f for f in findings_json("chain.py", cwd=tmp_path) if f["code"] == "CTG101"]
    assert (finding["line"], finding["column"]) == (6, 5)  # `.view`, not `(` on line 4
    for place, text in (("last", CHAIN.format(noqa="  # noqa: CTG101")),
                        ("sink", CHAIN.replace(".view(2, 12)", ".view(2, 12)  # noqa"))):
        write(tmp_path, f"{place}.py", text.format(noqa=""))
        assert not any(f["code"] == "CTG101" for f in findings_json(f"{place}.py",
                                                                    cwd=tmp_path)), place


# --- 13. excludes: .gitignore, packages named dist ------------------------------------------

def test_a_package_named_dist_is_linted_and_gitignore_is_respected(tmp_path):
    for name in ("mypkg/__init__.py", "mypkg/dist/__init__.py", "build/lib/x.py",
                 "generated/g.py", "mypkg/local_only.py"):
        write(tmp_path, name, BAD)
    write(tmp_path, "mypkg/dist/collectives.py", BAD)
    write(tmp_path, ".gitignore", "build/\ndist/\ngenerated/\nlocal_only.py\n")
    (tmp_path / ".git").mkdir()
    paths = {f["path"] for f in findings_json(".", cwd=tmp_path)}
    assert paths == {"mypkg/__init__.py", "mypkg/dist/__init__.py",
                     "mypkg/dist/collectives.py"}, paths
    # an explicit user exclude still skips a package
    write(tmp_path, "pyproject.toml", "[tool.contiglint]\nextend-exclude = ['mypkg/dist']\n")
    paths = {f["path"] for f in findings_json(".", cwd=tmp_path)}
    assert paths == {"mypkg/__init__.py"}, paths
    # respect-gitignore = false reads everything but the VCS/venv/cache names
    write(tmp_path, "pyproject.toml", "[tool.contiglint]\nrespect-gitignore = false\n")
    paths = {f["path"] for f in findings_json(".", cwd=tmp_path)}
    assert {"build/lib/x.py", "generated/g.py", "mypkg/local_only.py"} <= paths


def test_gitignore_of_the_repository_applies_to_a_subdirectory(tmp_path):
    (tmp_path / ".git").mkdir()
    write(tmp_path, ".gitignore", "*_gen.py\n")
    write(tmp_path, "src/a_gen.py", BAD)
    write(tmp_path, "src/b.py", BAD)
    assert {f["path"] for f in findings_json("src", cwd=tmp_path)} == {"src/b.py"}


# --- 14. the cache is keyed on the package's sources ----------------------------------------

def test_a_changed_rule_is_not_answered_from_the_cache(tmp_path):
    copy = tmp_path / "copy"
    shutil.copytree(ROOT / "contiglint", copy / "contiglint",
                    ignore=shutil.ignore_patterns("__pycache__"))
    project = tmp_path / "project"
    write(project, "bad.py", BAD)
    env = environment()
    env["PYTHONPATH"] = str(copy)
    env["CONTIGLINT_CACHE_DIR"] = str(tmp_path / "cache")

    def message():
        process = run_python(["-m", "contiglint", "--format", "json", *EXAMPLE_SELECT, "bad.py"],
                             project, env)
        return json.loads(process.stdout)[0]["message"]

    assert message() == message()  # the second answer comes from the cache
    rule = copy / "contiglint" / "rules" / "ctg101_view_on_noncontiguous.py"
    rule.write_text(rule.read_text().replace(".view() on a tensor", ".view() of a tensor"))
    assert message().startswith(".view() of a tensor")


def test_cache_key_changes_with_settings(tmp_path):
    write(tmp_path, "bad.py", BAD)
    assert contiglint("bad.py", cwd=tmp_path).returncode == 1
    assert contiglint("--ignore", "CTG101", "bad.py", cwd=tmp_path).returncode == 0


# --- severities -----------------------------------------------------------------------------

LOOP = ("import torch\n\nw = torch.randn(4, 4).t()\nfor i in range(3):\n"
        "    y = w.contiguous()\n")


def test_severity_in_text_github_and_sarif(tmp_path):
    write(tmp_path, "bad.py", BAD)
    write(tmp_path, "loop.py", LOOP)
    text = contiglint("--format", "text", "bad.py", "loop.py", cwd=tmp_path).stdout
    assert f"bad.py:{BAD_LINE}:22: CTG101 error: " in text
    assert "loop.py:5:10: CTG109 warning: " in text
    github = contiglint("--format", "github", "bad.py", "loop.py", cwd=tmp_path).stdout
    assert github.startswith("::error file=bad.py,") and "\n::warning file=loop.py," in github
    log = json.loads(contiglint("--format", "sarif", "bad.py", "loop.py", cwd=tmp_path).stdout)
    levels = {r["ruleId"]: r["level"] for r in log["runs"][0]["results"]}
    assert levels == {"CTG101": "error", "CTG109": "warning"}
    rules = {r["id"]: r["defaultConfiguration"]["level"]
             for r in log["runs"][0]["tool"]["driver"]["rules"]}
    assert rules["CTG109"] == "warning" and rules["CTG101"] == "error"


# --- full format and colour -----------------------------------------------------------------

def on_a_terminal(args, cwd, env=None, stdin_text=None) -> tuple[int, str]:
    """Run with stdout and stderr on a pseudo-terminal; returns (status, what it showed)."""
    controller, terminal = pty.openpty()
    process = subprocess.Popen([sys.executable, "-m", "contiglint", *args], cwd=cwd,
                               env=env or environment(), stdout=terminal, stderr=terminal,
                               stdin=subprocess.DEVNULL)
    os.close(terminal)
    shown = b""
    while True:
        ready, _, _ = select.select([controller], [], [], 60)
        if not ready:
            break
        try:
            chunk = os.read(controller, 65536)
        except OSError:
            break
        if not chunk:
            break
        shown += chunk
    os.close(controller)
    return process.wait(timeout=60), shown.decode("utf-8", "replace").replace("\r\n", "\n")


def test_full_format_is_the_default_on_a_terminal_with_colour(tmp_path):
    write(tmp_path, "bad.py", BAD)
    env = environment()
    env.pop("NO_COLOR", None)
    env.pop("FORCE_COLOR", None)
    status, shown = on_a_terminal(["--no-cache", *EXAMPLE_SELECT, "bad.py"], tmp_path, env)
    assert status == 1
    assert "\x1b[" in shown  # coloured
    plain = ANSI.sub("", shown)
    assert "error[CTG101]: .view() on a tensor made non-contiguous" in plain
    assert f"--> bad.py:{BAD_LINE}:22" in plain
    lines = plain.splitlines()
    source = next(i for i, line in enumerate(lines) if line.startswith(f"{BAD_LINE} | y = x"))
    caret = lines[source + 1]
    assert caret.index("^") == lines[source].index(".view")
    related = lines[source + 2]
    assert related.index("-") == lines[source].index(".transpose")
    assert "made non-contiguous here by `.transpose(1, 2)`" in related
    assert "fix (safe, --fix): replace .view() with .reshape()" in plain
    env["NO_COLOR"] = "1"
    status, shown = on_a_terminal(["--no-cache", *EXAMPLE_SELECT, "bad.py"], tmp_path, env)
    assert "\x1b[" not in shown and "error[CTG101]" in shown


def test_piped_output_is_concise_and_uncoloured(tmp_path):
    write(tmp_path, "bad.py", BAD)
    process = contiglint("bad.py", cwd=tmp_path)
    assert "\x1b[" not in process.stdout
    assert process.stdout.startswith(f"bad.py:{BAD_LINE}:22: CTG101 error: ")
    full = contiglint("--format", "full", "bad.py", cwd=tmp_path).stdout
    assert "\x1b[" not in full and f"{BAD_LINE} | y = x.transpose(1, 2).view(2, 12)" in full


def test_full_format_shows_stdin_source(tmp_path):
    process = contiglint("--format", "full", "-", "--stdin-filename", "m.py", cwd=tmp_path,
                         stdin=BAD)
    assert f"{BAD_LINE} | y = x.transpose(1, 2).view(2, 12)" in process.stdout


def test_messages_are_short_and_where_goes_to_related():
    fixtures = [str(p) for p in (ROOT / "fixtures").rglob("*.py")
                if not p.name.endswith(".fixed.py")]
    findings = findings_json(*fixtures, cwd=ROOT)
    assert findings
    lengths = sorted(len(f["message"]) for f in findings)
    assert lengths[len(lengths) // 2] <= 160 and lengths[-1] <= 240, lengths[-5:]
    assert not any(re.search(r"on line \d+|called from line", f["message"]) for f in findings)


# --- --output-file, --show-fixes, --add-noqa ------------------------------------------------

def test_output_file(tmp_path):
    write(tmp_path, "bad.py", BAD)
    process = contiglint("--output-file", "report.json", "--format", "json", "bad.py",
                         cwd=tmp_path)
    assert process.returncode == 1 and process.stdout == ""
    assert json.loads((tmp_path / "report.json").read_text())[0]["code"] == "CTG101"
    process = contiglint("-o", "report.txt", "bad.py", cwd=tmp_path)
    text = (tmp_path / "report.txt").read_text()
    assert text.startswith(f"bad.py:{BAD_LINE}:22: CTG101 error: ") and "\x1b[" not in text
    bad = contiglint("-o", str(tmp_path / "missing" / "r.txt"), "bad.py", cwd=tmp_path)
    assert bad.returncode == 2 and "--output-file" in bad.stderr


def test_show_fixes_lists_each_applied_fix(tmp_path):
    path = write(tmp_path, "bad.py", BAD)
    process = contiglint("--fix", "--show-fixes", "bad.py", cwd=tmp_path)
    assert process.returncode == 0 and path.read_text() == FIXED
    assert f"Fixed 1 problem:\n  bad.py:{BAD_LINE}:22: CTG101 replace .view() with " \
           ".reshape()" in process.stdout
    path.write_text(BAD)
    diff = contiglint("--diff", "--show-fixes", "bad.py", cwd=tmp_path)
    assert "Would fix 1 problem:" in diff.stderr and path.read_text() == BAD
    assert contiglint("--show-fixes", "bad.py", cwd=tmp_path).returncode == 2


def test_add_noqa_suppresses_every_finding_and_is_idempotent(tmp_path):
    write(tmp_path, "bad.py", BAD)
    write(tmp_path, "chain.py", CHAIN.format(noqa="  # keep this comment"))
    write(tmp_path, "loop.py", LOOP.replace("w.contiguous()", "w.contiguous()  # noqa: CTG1"
                                            "01"))
    write(tmp_path, "clean.py", CLEAN)
    before = contiglint("--no-cache", ".", cwd=tmp_path)
    assert before.returncode == 1
    added = contiglint("--add-noqa", ".", cwd=tmp_path)
    assert added.returncode == 0 and "Added 3 noqa directives." in added.stdout, added.stdout
    assert (tmp_path / "bad.py").read_text() == BAD.replace(
        "view(2, 12)\n", "view(2, 12)  # noqa: CTG101\n")
    assert "# noqa: CTG101, CTG109" in (tmp_path / "loop.py").read_text()
    assert (tmp_path / "clean.py").read_text() == CLEAN
    assert contiglint("--no-cache", ".", cwd=tmp_path).returncode == 0
    snapshot = {p.name: p.read_text() for p in tmp_path.glob("*.py")}
    again = contiglint("--add-noqa", ".", cwd=tmp_path)
    assert "Added 0 noqa directives." in again.stdout
    assert {p.name: p.read_text() for p in tmp_path.glob("*.py")} == snapshot


# --- --watch --------------------------------------------------------------------------------

def test_watch_rechecks_on_change_and_stops_cleanly_on_ctrl_c(tmp_path):
    path = write(tmp_path, "bad.py", BAD)
    # Ctrl-C as a terminal delivers it: the watcher starts with SIGINT at its default, even
    # where the suite runs as a background job (`.ci/run &`), whose children ignore SIGINT
    process = subprocess.Popen([sys.executable, "-m", "contiglint", "--watch", "--no-cache",
                                *EXAMPLE_SELECT, "."], cwd=tmp_path, env=environment(),
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                               stdin=subprocess.DEVNULL,
                               preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    lines: queue.Queue = queue.Queue()
    threading.Thread(target=lambda: [lines.put(line) for line in process.stdout],
                     daemon=True).start()
    seen = []

    def wait_for(text, timeout=60):
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            try:
                line = lines.get(timeout=1)
            except queue.Empty:
                continue
            seen.append(line)
            if text in line:
                return
        raise AssertionError(f"{text!r} not shown: {seen}")

    try:
        wait_for("Watching for changes")
        assert any("CTG101" in line for line in seen)
        time.sleep(0.05)
        path.write_text(FIXED)
        wait_for("All checks passed!")
        wait_for("Watching for changes")
        process.send_signal(signal.SIGINT)
        status = process.wait(timeout=30)
    finally:
        if process.poll() is None:
            process.kill()
    stderr = process.stderr.read()
    assert status == 130 and "Traceback" not in stderr and "stopped watching" in stderr


# --- progress -------------------------------------------------------------------------------

def test_progress_on_a_terminal_for_long_runs_only(tmp_path):
    for number in range(320):
        write(tmp_path, f"m{number:03}.py", "x = 1\n")
    status, shown = on_a_terminal(["--no-cache", "-j", "1", "."], tmp_path)
    assert status == 0 and "320/320 files checked" in shown
    process = contiglint("--no-cache", "-j", "1", ".", cwd=tmp_path)  # not a terminal
    assert "files checked" not in process.stderr
    few = tmp_path / "few"
    write(few, "a.py", "x = 1\n")
    status, shown = on_a_terminal(["--no-cache", "few"], tmp_path)
    assert "files checked" not in shown


# --- 11. the static fix and the runtime report say the same thing ---------------------------

def test_the_reshape_written_by_fix_is_reported_by_run_as_the_intended_copy(tmp_path):
    pytest.importorskip("torch")
    path = write(tmp_path, "bad.py", BAD)
    fixed = contiglint("--fix", "--show-fixes", "bad.py", cwd=tmp_path)
    assert fixed.returncode == 0 and path.read_text() == FIXED
    said = "copies where .view() would raise"
    assert said in fixed.stdout
    process = contiglint("run", "--format", "json", "-o", "report.json", "bad.py", cwd=tmp_path)
    assert process.returncode == 0, process.stderr
    [entry] = json.loads((tmp_path / "report.json").read_text())["entries"]
    assert (entry["code"], entry["line"], entry["severity"]) == ("CTG201", BAD_LINE, "warning")
    assert said in entry["note"] and "implicit" not in entry["title"]
    text = contiglint("run", "bad.py", cwd=tmp_path).stderr
    assert f"bad.py:{BAD_LINE}: CTG201 warning: copy of a non-contiguous tensor" in text
    assert said in text


def test_runtime_report_is_sorted_by_file_and_line(tmp_path):
    pytest.importorskip("torch")
    write(tmp_path, "order.py", "import torch\n\nsmall = torch.randn(2, 3).t().flatten()\n"
                                "big = torch.randn(300, 400).t().flatten()\n")
    process = contiglint("run", "--format", "json", "-o", "report.json", "order.py",
                         cwd=tmp_path)
    assert process.returncode == 0, process.stderr
    entries = json.loads((tmp_path / "report.json").read_text())["entries"]
    assert [e["line"] for e in entries] == [3, 4]
    assert entries[0]["bytes_copied"] < entries[1]["bytes_copied"]


def test_output_into_a_closed_pipe_ends_quietly(tmp_path):
    """`contiglint rule CTG101 | head -1`: the reader leaves early; no BrokenPipe traceback."""
    process = subprocess.run(
        f"{sys.executable} -m contiglint rule CTG101 | head -c 1 > /dev/null", shell=True,
        cwd=tmp_path, env=environment(), capture_output=True, text=True, timeout=120)
    assert "Traceback" not in process.stderr and "BrokenPipe" not in process.stderr, \
        process.stderr
