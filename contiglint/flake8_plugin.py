"""flake8 adapter: flake8's tree and lines in, the engine's findings out as flake8 tuples.

It calls the same `lint_source` as the CLI (with flake8's already parsed tree) with the same
settings: `[tool.contiglint]` of the nearest pyproject.toml above the file (select, ignore,
per-file-ignores, strict, rule options), as the CLI reads it, so it reports exactly the same
findings; flake8 adds 1 to the column it is given, so it gets `column - 1`. flake8's own
`# noqa` and `--select`/`--ignore` apply on top of contiglint's. A bad configuration raises
`ConfigError`, which flake8 reports as a failure of the plugin naming the file and key.
An opt-in rule (a preview rule too) runs when flake8's `--select` or `--extend-select`
names its full code.
"""
from __future__ import annotations

import ast
import os
from dataclasses import replace
from functools import lru_cache
from typing import Iterator, Sequence

from contiglint import __version__
from contiglint.config import Config, Overrides, find_pyproject, resolve
from contiglint.engine import lint_source
from contiglint.settings import Settings


class ContiglintChecker:
    name = "contiglint"
    version = __version__
    strict = False
    extend_select: tuple[str, ...] = ()  # opt-in rules named by flake8's selection

    def __init__(self, tree: ast.Module, lines: Sequence[str], filename: str) -> None:
        self.tree = tree
        self.lines = lines
        self.filename = filename

    @classmethod
    def add_options(cls, option_manager) -> None:
        option_manager.add_option(
            "--contiglint-strict", action="store_true", default=False, parse_from_config=True,
            help="contiglint: also flag sinks whose tensor layout is unknown")

    @classmethod
    def parse_options(cls, options) -> None:
        cls.strict = bool(getattr(options, "contiglint_strict", False))
        from contiglint.rules import all_rules

        named = {str(code).strip().upper() for option in ("select", "extend_select")
                 for code in (getattr(options, option, None) or ())}
        cls.extend_select = tuple(rule.code for rule in all_rules()
                                  if rule.opt_in and rule.code in named)

    def run(self) -> Iterator[tuple[int, int, str, type]]:
        text = "".join(self.lines)
        settings = _config(_pyproject(self.filename), self.strict).settings_for(self.filename)
        if self.extend_select:
            settings = replace(settings, extend_select=settings.extend_select + self.extend_select)
        result = lint_source(text, self.filename, settings, tree=self.tree)
        for finding in result.findings:
            yield finding.line, finding.column - 1, f"{finding.code} {finding.message}", \
                type(self)


def _pyproject(filename: str):
    directory = os.path.dirname(os.path.abspath(filename)) if filename not in ("-", "stdin") \
        else os.getcwd()
    return _nearest(directory)


@lru_cache(maxsize=None)
def _nearest(directory: str):
    return find_pyproject(directory)


@lru_cache(maxsize=None)
def _config(pyproject, strict: bool) -> Config:
    """One configuration per pyproject.toml (files of one project share it)."""
    if pyproject is None:
        return replace(Config(), settings=replace(Settings(), strict=strict))
    return resolve(Overrides(strict=strict), pyproject)
