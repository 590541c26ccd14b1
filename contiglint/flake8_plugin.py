"""flake8 adapter: flake8's tree and lines in, the engine's findings out as flake8 tuples.

It calls the same `lint_source` as the CLI (with flake8's already parsed tree), so it reports
exactly the same findings; flake8 adds 1 to the column it is given, so it gets `column - 1`.
flake8's own `# noqa` and `--select`/`--ignore` apply on top of contiglint's. An opt-in rule
(a preview rule too) runs when flake8's `--select` or `--extend-select` names its full code.
"""
from __future__ import annotations

import ast
from typing import Iterator, Sequence

from contiglint import __version__
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
        result = lint_source(text, self.filename, Settings(strict=self.strict, extend_select=self.extend_select), tree=self.tree)
        for finding in result.findings:
            yield finding.line, finding.column - 1, f"{finding.code} {finding.message}", \
                type(self)
