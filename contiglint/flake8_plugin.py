"""flake8 adapter: flake8's tree and lines in, the engine's findings out as flake8 tuples.

It calls the same `lint_source` as the CLI (with flake8's already parsed tree), so it reports
exactly the same findings; flake8 adds 1 to the column it is given, so it gets `column - 1`.
flake8's own `# noqa` and `--select`/`--ignore` apply on top of contiglint's.

Registered twice (the installed entry point and a `[flake8:local-plugins]` entry naming the same
class), flake8 would define `--contiglint-strict` twice, which argparse refuses, and would run
the checker twice on each file. The second registration therefore reuses the option, and a
checker handed the very tree object the previous one just checked yields nothing: flake8 gives
every plugin of a file the same tree, so findings are reported once.
"""
from __future__ import annotations

import argparse
import ast
from typing import Iterator, Optional, Sequence

from contiglint import __version__
from contiglint.engine import lint_source
from contiglint.settings import Settings


class ContiglintChecker:
    name = "contiglint"
    version = __version__
    strict = False
    _registrations = 0
    _last_tree: Optional[ast.Module] = None  # held only while registered more than once

    def __init__(self, tree: ast.Module, lines: Sequence[str], filename: str) -> None:
        self.tree = tree
        self.lines = lines
        self.filename = filename

    @classmethod
    def add_options(cls, option_manager) -> None:
        cls._registrations += 1
        try:
            option_manager.add_option(
                "--contiglint-strict", action="store_true", default=False,
                parse_from_config=True,
                help="contiglint: also flag sinks whose tensor layout is unknown")
        except argparse.ArgumentError:
            if cls._registrations == 1:
                raise  # another plugin owns the option: not ours to hide

    @classmethod
    def parse_options(cls, options) -> None:
        cls.strict = bool(getattr(options, "contiglint_strict", False))

    def run(self) -> Iterator[tuple[int, int, str, type]]:
        if type(self)._registrations > 1:
            if self.tree is type(self)._last_tree:
                return  # the same file again, from the second registration
            type(self)._last_tree = self.tree
        text = "".join(self.lines)
        result = lint_source(text, self.filename, Settings(strict=self.strict), tree=self.tree)
        for finding in result.findings:
            yield finding.line, finding.column - 1, f"{finding.code} {finding.message}", \
                type(self)
