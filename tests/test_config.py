"""[tool.contiglint] loading, validation, discovery and merging with flags."""
from __future__ import annotations

import os

import pytest

from tests.clitools import BAD, PREVIEW_BAD, PREVIEW_CODE, contiglint, findings_json, write
from contiglint.config import ConfigError, Overrides, find_pyproject, load_config, resolve
from contiglint.rules import rule_by_code
from contiglint.rules.base import Option
from contiglint.settings import Settings


def pyproject(directory, body):
    return write(directory, "pyproject.toml", body)


def test_all_keys_load(tmp_path):
    path = pyproject(tmp_path, """
[tool.contiglint]
select = ["CTG1"]
ignore = ["ctg102"]
extend-select = ["CTG201"]
exclude = ["gen"]
extend-exclude = ["*_pb2.py"]
strict = true
[tool.contiglint.per-file-ignores]
"tests/*" = ["CTG101"]
""")
    config = load_config(str(path))
    settings = config.settings
    assert (settings.select, settings.ignore, settings.extend_select, settings.strict) == \
        (("CTG1",), ("CTG102",), ("CTG201",), True)
    assert (config.exclude, config.extend_exclude) == (("gen",), ("*_pb2.py",))
    assert config.root == str(tmp_path)
    assert config.settings_for(str(tmp_path / "tests" / "t.py")).ignore == ("CTG102", "CTG101")
    assert config.settings_for(str(tmp_path / "src" / "t.py")).ignore == ("CTG102",)


@pytest.mark.parametrize("body, words", [
    ("selec = ['CTG']", "[tool.contiglint] selec: unknown key"),
    ("strict = 'yes'", "strict: must be true or false"),
    ("preview = 'yes'", "preview: must be true or false"),
    ("select = 'CTG101'", "select: must be a list of strings"),
    ("ignore = ['E501']", "'E501' is not a contiglint code"),
    ("per-file-ignores = ['x']", "per-file-ignores: must be a table"),
    ("[tool.contiglint.CTG999]\nx = 1", "unknown rule 'CTG999'"),
    ("[tool.contiglint.CTG101]\nno_such_option = 1", "unknown option 'no_such_option' for CTG101"),
    ("select = [", "invalid TOML"),
])
def test_bad_config_names_file_and_key(tmp_path, body, words):
    path = pyproject(tmp_path, "[tool.contiglint]\n" + body + "\n")
    with pytest.raises(ConfigError) as raised:
        load_config(str(path))
    message = str(raised.value)
    assert message.startswith(str(path)) and words in message, message
    assert "\n" not in message


def test_rule_option_values_are_type_checked(tmp_path, monkeypatch):
    rule = rule_by_code("CTG101")
    monkeypatch.setattr(rule, "options", {"max_depth": Option(3), "verbose": Option(False)})
    good = pyproject(tmp_path, "[tool.contiglint.CTG101]\nmax_depth = 5\nverbose = true\n")
    assert dict(load_config(str(good)).settings.rule_options["CTG101"]) == \
        {"max_depth": 5, "verbose": True}
    bad = pyproject(tmp_path, "[tool.contiglint.CTG101]\nmax_depth = true\n")
    with pytest.raises(ConfigError, match="max_depth must be an integer"):
        load_config(str(bad))


def test_nearest_pyproject_with_our_table_wins(tmp_path):
    pyproject(tmp_path, "[tool.contiglint]\nignore = ['CTG101']\n")
    inner = tmp_path / "inner"
    pyproject(inner, "[tool.black]\nline-length = 100\n")  # no [tool.contiglint]: skipped
    (inner / "src").mkdir()
    assert find_pyproject(str(inner / "src")) == str(tmp_path / "pyproject.toml")
    pyproject(inner, "[tool.contiglint]\n")
    assert find_pyproject(str(inner / "src")) == str(inner / "pyproject.toml")


def test_flags_win_over_the_file(tmp_path):
    pyproject(tmp_path, "[tool.contiglint]\nselect = ['CTG1']\nignore = ['CTG101']\n"
                        "extend-select = ['CTG2']\n")
    start = str(tmp_path)
    assert not resolve(Overrides(), start=start).settings.is_enabled("CTG101")
    chosen = resolve(Overrides(select=("CTG101",)), start=start).settings
    assert chosen.is_enabled("CTG101") and not chosen.is_enabled("CTG201")
    added = resolve(Overrides(ignore=("CTG102",), extend_select=("CTG3",), strict=True),
                    start=start).settings
    assert added.ignore == ("CTG101", "CTG102") and added.extend_select == ("CTG2", "CTG3")
    assert added.strict


def test_preview_and_all_load_and_flags_win(tmp_path):
    pyproject(tmp_path, "[tool.contiglint]\npreview = true\nselect = ['all']\n"
                        "ignore = ['CTG111']\n")
    start = str(tmp_path)
    configured = resolve(Overrides(), start=start).settings
    assert (configured.preview, configured.select) == (True, ("ALL",))
    assert configured.is_enabled("CTG101", "preview") and configured.is_enabled("CTG113",
                                                                                "opt-in")
    assert not configured.is_enabled("CTG111") and configured.is_enabled("CTG105")
    assert not resolve(Overrides(preview=False), start=start).settings.is_enabled("CTG101",
                                                                                  "preview")
    assert resolve(Overrides(preview=None), start=start).settings.preview
    assert configured.cache_key != resolve(Overrides(preview=False), start=start) \
        .settings.cache_key


@pytest.mark.parametrize("select, preview, stable, preview_rule, opt_in", [
    (("CTG",), False, True, False, False),
    (("CTG",), True, True, True, False),
    (("ALL",), False, True, False, True),
    (("ALL",), True, True, True, True),
    (("CTG101", "CTG105", "CTG113"), False, True, True, True),  # full codes: always
])
def test_which_status_each_selection_runs(select, preview, stable, preview_rule, opt_in):
    settings = Settings(select=select, preview=preview)
    assert settings.is_enabled("CTG105", "stable") == stable
    assert settings.is_enabled("CTG101", "preview") == preview_rule
    assert settings.is_enabled("CTG113", "opt-in") == opt_in
    named = (("CTG101", "preview"), ("CTG105", "stable"), ("CTG113", "opt-in"))
    assert settings.not_run(named) == (() if preview_rule else ("CTG101",))


def test_an_unknown_status_is_an_error():
    with pytest.raises(ValueError, match="unknown rule status 'beta'"):
        Settings().is_enabled("CTG101", "beta")


def test_explicit_config_file_must_exist(tmp_path):
    with pytest.raises(ConfigError, match="does not exist"):
        resolve(Overrides(), config_path=str(tmp_path / "nope.toml"))


# --- through the real command ------------------------------------------------------------------

def test_cli_reads_pyproject_and_flags_override(tmp_path):
    pyproject(tmp_path, "[tool.contiglint]\nignore = ['CTG101']\n")
    write(tmp_path, "bad.py", BAD)
    assert contiglint("bad.py", cwd=tmp_path).returncode == 0
    assert contiglint("--select", "CTG101", "bad.py", cwd=tmp_path).returncode == 1


def test_cli_per_file_ignores_and_extend_exclude(tmp_path):
    pyproject(tmp_path, "[tool.contiglint]\nextend-exclude = ['generated']\n"
                        "[tool.contiglint.per-file-ignores]\n'legacy/*' = ['CTG101']\n")
    for name in ("a.py", "legacy/b.py", "generated/c.py"):
        write(tmp_path, name, BAD)
    flagged = {os.path.normpath(f["path"]) for f in findings_json(".", cwd=tmp_path)}
    assert flagged == {"a.py"}


def test_cli_config_flag_points_at_a_file(tmp_path):
    write(tmp_path, "bad.py", PREVIEW_BAD)
    write(tmp_path, "conf/pyproject.toml",
          f"[tool.contiglint]\nextend-select = ['{PREVIEW_CODE}']\n")
    assert contiglint("--config", "conf/pyproject.toml", "bad.py", cwd=tmp_path,
                      defaults=True).returncode == 1
    assert contiglint("bad.py", cwd=tmp_path, defaults=True).returncode == 0


def test_cli_bad_config_exits_2_with_one_line(tmp_path):
    pyproject(tmp_path, "[tool.contiglint]\nselect = ['CTG']\nfrobnicate = 1\n")
    write(tmp_path, "bad.py", BAD)
    process = contiglint("bad.py", cwd=tmp_path)
    assert process.returncode == 2
    assert process.stdout == ""
    lines = process.stderr.splitlines()
    assert len(lines) == 1 and "pyproject.toml" in lines[0] and "frobnicate" in lines[0]
