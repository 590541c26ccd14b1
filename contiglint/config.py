"""`[tool.contiglint]` in pyproject.toml, validated, then merged with command-line flags.

Validation is strict on purpose: a misspelt key silently ignored is a rule silently not run.
Every problem raises `ConfigError` naming the file and the key, and the CLI prints it as one
line and exits 2.
"""
from __future__ import annotations

import os
import re
import sys
from dataclasses import dataclass, replace
from types import MappingProxyType
from typing import Any, Mapping, Optional

from contiglint.files import matches
from contiglint.rules import all_rules, known_codes, registry, rule_by_code, unknown_prefix
from contiglint.settings import ALL, DEFAULT_MAX_FILE_SIZE, DEFAULT_SELECT, Settings

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - exercised only on old Pythons
    try:
        import tomli as tomllib
    except ImportError:
        tomllib = None

CODE_PREFIX = re.compile(r"^(C|CT|CTG[0-9]{0,3})$")
LIST_KEYS = ("select", "ignore", "extend-select", "exclude", "extend-exclude")
BOOL_KEYS = ("strict", "respect-gitignore", "preview")
KNOWN_KEYS = frozenset(LIST_KEYS + BOOL_KEYS + ("per-file-ignores", "max-file-size"))


class ConfigError(Exception):
    """A configuration or flag value contiglint cannot use; the message is one line."""


@dataclass(frozen=True)
class Config:
    """Everything a run needs besides the paths: rule settings, file selection, cache root."""

    settings: Settings = Settings()
    exclude: Optional[tuple[str, ...]] = None  # None: discovery.DEFAULT_EXCLUDE
    extend_exclude: tuple[str, ...] = ()
    per_file_ignores: tuple[tuple[str, tuple[str, ...]], ...] = ()
    root: Optional[str] = None  # directory of the pyproject.toml, where globs are anchored
    path: Optional[str] = None  # the pyproject.toml read, if any
    respect_gitignore: bool = True

    def settings_for(self, path: str) -> Settings:
        """The settings for one file: per-file-ignores add to `ignore`."""
        extra = tuple(code for pattern, codes in self.per_file_ignores
                      if matches(path, (pattern,), self.root) for code in codes)
        if not extra:
            return self.settings
        return replace(self.settings, ignore=self.settings.ignore + extra)


def find_pyproject(start: str) -> Optional[str]:
    """The nearest pyproject.toml at or above `start` that has a `[tool.contiglint]` table."""
    directory = os.path.abspath(start if os.path.isdir(start) else os.path.dirname(start) or ".")
    while True:
        candidate = os.path.join(directory, "pyproject.toml")
        if os.path.isfile(candidate) and _has_section(candidate):
            return candidate
        parent = os.path.dirname(directory)
        if parent == directory:
            return None
        directory = parent


def _has_section(path: str) -> bool:
    try:
        with open(path, "rb") as handle:
            if b"contiglint" not in handle.read():
                return False  # cheap: most pyproject.toml files never mention us
        return "contiglint" in _tool_table(_read(path))
    except (OSError, ConfigError):
        return True  # let load_config report the problem instead of silently skipping the file


def _read(path: str) -> dict:
    if tomllib is None:
        raise ConfigError(f"{path}: reading pyproject.toml needs Python 3.11+ or `pip install "
                          "tomli`")
    try:
        with open(path, "rb") as handle:
            return tomllib.load(handle)
    except OSError as error:
        raise ConfigError(f"{path}: cannot read: {error.strerror or error}") from None
    except tomllib.TOMLDecodeError as error:
        raise ConfigError(f"{path}: invalid TOML: {error}") from None


def _tool_table(document: dict) -> dict:
    tool = document.get("tool", {})
    return tool if isinstance(tool, dict) else {}


def load_config(path: str) -> Config:
    """Read and validate `[tool.contiglint]` (an absent table means the defaults)."""
    table = _tool_table(_read(path)).get("contiglint", {})
    if not isinstance(table, dict):
        raise ConfigError(f"{path}: [tool.contiglint] must be a table")
    values: dict[str, Any] = {}
    rule_options: dict[str, Mapping[str, object]] = {}
    for key, value in table.items():
        where = f"{path}: [tool.contiglint] {key}"
        if isinstance(value, dict) and key.upper().startswith("CTG"):
            rule_options[key.upper()] = _rule_options(f"{path}: [tool.contiglint.{key}]", key,
                                                      value)
        elif key not in KNOWN_KEYS:
            known = ", ".join(sorted(KNOWN_KEYS))
            raise ConfigError(f"{where}: unknown key (known keys: {known}, and "
                              "[tool.contiglint.CTGnnn] tables for rule options)")
        elif key in BOOL_KEYS:
            if not isinstance(value, bool):
                raise ConfigError(f"{where}: must be true or false, not {value!r}")
            values[key] = value
        elif key == "per-file-ignores":
            values[key] = _per_file_ignores(where, value)
        elif key == "max-file-size":
            if isinstance(value, bool) or not isinstance(value, int) or value < 0:
                raise ConfigError(f"{where}: must be a number of bytes (0 for no limit), "
                                  f"not {value!r}")
            values[key] = value
        else:
            values[key] = _strings(where, value)
            if key in ("select", "ignore", "extend-select"):
                values[key] = tuple(check_code(where, code) for code in values[key])
    settings = Settings(
        select=values.get("select", DEFAULT_SELECT),
        ignore=values.get("ignore", ()),
        extend_select=values.get("extend-select", ()),
        strict=values.get("strict", False),
        max_file_size=values.get("max-file-size", DEFAULT_MAX_FILE_SIZE),
        rule_options=MappingProxyType(rule_options),
        preview=values.get("preview", False),
    )
    return Config(settings, values.get("exclude"),
                  values.get("extend-exclude", ()), values.get("per-file-ignores", ()),
                  os.path.dirname(os.path.abspath(path)), path,
                  values.get("respect-gitignore", True))


def check_code(where: str, code: str) -> str:
    """A rule code or prefix (`CTG`, `CTG1`, `CTG101`) or `ALL`, upper-cased; anything else is an
    error."""
    normal = code.strip().upper()
    if normal == ALL:
        return normal
    if not CODE_PREFIX.match(normal):
        raise ConfigError(f"{where}: {code!r} is not a contiglint code or code prefix "
                          "(expected e.g. ALL, CTG, CTG1, CTG101)")
    if unknown_prefix(normal):
        raise ConfigError(f"{where}: unknown code {code!r}: no rule has this code or prefix "
                          f"(known codes: {', '.join(known_codes())})")
    return normal


def _strings(where: str, value: object) -> tuple[str, ...]:
    if not isinstance(value, list) or not all(isinstance(item, str) for item in value):
        raise ConfigError(f"{where}: must be a list of strings, not {value!r}")
    return tuple(value)


def _per_file_ignores(where: str, value: object) -> tuple[tuple[str, tuple[str, ...]], ...]:
    if not isinstance(value, dict):
        raise ConfigError(f"{where}: must be a table of glob = [codes], not {value!r}")
    return tuple((pattern, tuple(check_code(f"{where} {pattern!r}", code)
                                 for code in _strings(f"{where} {pattern!r}", codes)))
                 for pattern, codes in value.items())


def _rule_options(where: str, code: str, value: dict) -> Mapping[str, object]:
    rule = rule_by_code(code)
    if rule is None:
        known = ", ".join(r.code for r in all_rules()) or "none"
        raise ConfigError(f"{where}: unknown rule {code!r} (known rules: {known})")
    for name, option in value.items():
        if name not in rule.options:
            known = ", ".join(sorted(rule.options)) or "none"
            raise ConfigError(f"{where}: unknown option {name!r} for {rule.code} "
                              f"(known options: {known})")
        problem = rule.options[name].problem(option)
        if problem:
            raise ConfigError(f"{where}: {name} {problem}")
    return MappingProxyType(dict(value))


def split_codes(flag: str, text: Optional[str]) -> Optional[tuple[str, ...]]:
    """`--select CTG1,CTG201` -> ("CTG1", "CTG201"); None when the flag was not given."""
    if text is None:
        return None
    codes = tuple(check_code(flag, code) for code in text.split(",") if code.strip())
    if not codes:
        raise ConfigError(f"{flag}: no code given (expected e.g. ALL, CTG, CTG1, CTG101)")
    return codes


@dataclass(frozen=True)
class Overrides:
    """What the command line says; None means "not given, keep the configured value"."""

    select: Optional[tuple[str, ...]] = None
    ignore: Optional[tuple[str, ...]] = None
    extend_select: Optional[tuple[str, ...]] = None
    strict: bool = False
    preview: Optional[bool] = None  # --preview / --no-preview


def resolve(overrides: Overrides, config_path: Optional[str] = None,
            start: str = ".") -> Config:
    """Load the configuration (`--config FILE`, else the nearest pyproject.toml) and apply flags.

    Flags win: `--select` replaces the configured select, extend-select and ignore; `--ignore`
    and `--extend-select` add to the configured lists; `--strict` turns strict mode on;
    `--preview`/`--no-preview` replace the configured `preview`.
    """
    if config_path is not None:
        if not os.path.isfile(config_path):
            raise ConfigError(f"{config_path}: --config file does not exist")
        config = load_config(config_path)
    else:
        found = find_pyproject(start)
        config = load_config(found) if found else Config()
    settings = config.settings
    if overrides.select is not None:
        settings = replace(settings, select=overrides.select, extend_select=(), ignore=())
    if overrides.ignore:
        settings = replace(settings, ignore=settings.ignore + overrides.ignore)
    if overrides.extend_select:
        settings = replace(settings, extend_select=settings.extend_select
                           + overrides.extend_select)
    if overrides.strict:
        settings = replace(settings, strict=True)
    if overrides.preview is not None:
        settings = replace(settings, preview=overrides.preview)
    # a selection of preview rules alone is no error without preview: the run says they did
    # not run (Settings.not_run)
    chosen = replace(settings, ignore=(), preview=True)
    if not any(chosen.is_enabled(entry.code, entry.status) for entry in registry.entries()):
        where = "--select" if overrides.select is not None else f"{config.path}: [tool.contiglint]"
        codes = ", ".join(settings.select + settings.extend_select) or "nothing"
        raise ConfigError(f"{where}: {codes} selects no rule of the linter (CTG2xx codes are "
                          "reported by `contiglint run` only)")
    return replace(config, settings=settings)
