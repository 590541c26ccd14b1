"""flake8 adapter: flake8's tree and lines in, the engine's findings out as flake8 tuples.

It calls the same `lint_source` as the CLI (with flake8's already parsed tree) with the same
settings: `[tool.contiglint]` of the nearest pyproject.toml above the file (select, ignore,
per-file-ignores, strict, preview, rule options), as the CLI reads it, so it reports exactly the
same findings; flake8 adds 1 to the column it is given, so it gets `column - 1`. flake8's own
`# noqa` and `--select`/`--ignore` apply on top of contiglint's. A bad configuration ends the
run with the CLI's one-line message (`contiglint: error: FILE: key: ...`) and exit 2, before any
file is checked: while flake8 parses its options, in its own process, the plugin reads the
configuration of every file flake8 will check (listed as flake8 lists them, with its
`--exclude` and `--filename`), nested projects' pyproject.toml files included. Raising from a
`-j` worker instead would leave flake8 in `multiprocessing.Pool.terminate()`, which can hang
when a worker dies while the pool feeds it. A configuration that turns bad during the run
still stops it, through flake8's `ExecutionError`.
An opt-in rule (a preview rule too) runs when flake8's `--select` or `--extend-select`
names its full code; `--contiglint-preview` (`contiglint-preview = true` in `[flake8]`) turns
preview on, as `--preview` does for the CLI: the preview rules the selection names run.

Registered twice (the installed entry point and a `[flake8:local-plugins]` entry naming the same
class), flake8 would define `--contiglint-strict` twice, which argparse refuses, and would run
the checker twice on each file. The second registration therefore reuses the option, and a
checker handed the very tree object the previous one just checked yields nothing: flake8 gives
every plugin of a file the same tree, so findings are reported once.
"""
from __future__ import annotations

import argparse
import ast
import os
from dataclasses import replace
from functools import lru_cache
from typing import Iterator, Optional, Sequence

from contiglint import __version__
from contiglint.config import Config, ConfigError, Overrides, find_pyproject, resolve
from contiglint.engine import lint_source
from contiglint.settings import Settings


class ContiglintChecker:
    name = "contiglint"
    version = __version__
    strict = False
    preview = False
    extend_select: tuple[str, ...] = ()  # opt-in rules named by flake8's selection
    _registrations = 0
    _last_tree: Optional[ast.Module] = None  # held only while registered more than once

    def __init__(self, tree: ast.Module, lines: Sequence[str], filename: str) -> None:
        self.tree = tree
        self.lines = lines
        self.filename = filename

    @classmethod
    def add_options(cls, option_manager) -> None:
        cls._registrations += 1
        for flag, help in (("--contiglint-strict", "also flag sinks whose tensor layout is "
                            "unknown"),
                           ("--contiglint-preview", "also run the preview rules the selection "
                            "names (as `contiglint --preview`)")):
            try:
                option_manager.add_option(flag, action="store_true", default=False,
                                          parse_from_config=True, help=f"contiglint: {help}")
            except argparse.ArgumentError:
                if cls._registrations == 1:
                    raise  # another plugin owns the option: not ours to hide

    @classmethod
    def parse_options(cls, option_manager, options, args: Sequence[str] = ()) -> None:
        cls.strict = bool(getattr(options, "contiglint_strict", False))
        cls.preview = bool(getattr(options, "contiglint_preview", False))
        from contiglint.rules import registry

        named = {str(code).strip().upper() for option in ("select", "extend_select")
                 for code in (getattr(options, option, None) or ())}
        cls.extend_select = tuple(entry.code for entry in registry.entries()
                                  if entry.opt_in and entry.code in named)
        for directory in _directories(options, args):
            try:
                _config(_nearest(directory), cls.strict, cls.preview)
            except ConfigError as error:
                option_manager.parser.exit(2, f"contiglint: error: {error}\n")

    def run(self) -> Iterator[tuple[int, int, str, type]]:
        if type(self)._registrations > 1:
            if self.tree is type(self)._last_tree:
                return  # the same file again, from the second registration
            type(self)._last_tree = self.tree
        text = "".join(self.lines)
        try:
            config = _config(_pyproject(self.filename), self.strict, self.preview)
        except ConfigError as error:
            from flake8.exceptions import ExecutionError

            raise ExecutionError(f"contiglint: error: {error}") from None
        settings = config.settings_for(self.filename)
        if self.extend_select:
            settings = replace(settings, extend_select=settings.extend_select + self.extend_select)
        result = lint_source(text, self.filename, settings, tree=self.tree)
        for finding in result.findings:
            yield finding.line, finding.column - 1, f"{finding.code} {finding.message}", \
                type(self)


def _directories(options, args: Sequence[str]) -> list[str]:
    """The directories of the files flake8 will check, each once, in the order met."""
    named = list(args or ["."])
    directories = [os.path.abspath(path) if os.path.isdir(path) else _directory(path)
                   for path in named]
    try:
        from flake8.discover_files import expand_paths

        directories += map(_directory, expand_paths(
            paths=named, stdin_display_name=getattr(options, "stdin_display_name", "stdin"),
            filename_patterns=getattr(options, "filename", None) or ["*.py"],
            exclude=[*(getattr(options, "exclude", None) or ()),
                     *(getattr(options, "extend_exclude", None) or ())]))
    except ImportError:  # an older flake8: the named paths only, the rest while checking
        pass
    return list(dict.fromkeys(directories))


def _directory(filename: str) -> str:
    """Where a file's configuration is looked for: its directory, the working directory for
    standard input."""
    return os.getcwd() if filename in ("-", "stdin") else \
        os.path.dirname(os.path.abspath(filename))


def _pyproject(filename: str):
    return _nearest(_directory(filename))


@lru_cache(maxsize=None)
def _nearest(directory: str):
    return find_pyproject(directory)


@lru_cache(maxsize=None)
def _config(pyproject, strict: bool, preview: bool) -> Config:
    """One configuration per pyproject.toml (files of one project share it); the option turns
    preview on, else the configuration's `preview` holds."""
    if pyproject is None:
        return replace(Config(), settings=replace(Settings(), strict=strict, preview=preview))
    return resolve(Overrides(strict=strict, preview=True if preview else None), pyproject)
