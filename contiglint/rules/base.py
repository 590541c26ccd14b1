"""The contract every rule fulfils. A rule reads sinks from the flow pass; it never walks the tree.

A rule is a class with a code, a name, a one-line summary, the sink kinds it reads, and a
docstring that is its user documentation (`contiglint rule CODE` prints it). `check()` turns a
sink into zero or more reports; `RuleContext` turns reports into findings with positions.
"""
from __future__ import annotations

import ast
from dataclasses import dataclass, field
from typing import ClassVar, Iterable, Mapping, Optional

from contiglint.findings import Finding, Fix, Related
from contiglint.settings import Settings
from contiglint.source import SourceMap


@dataclass
class Report:
    node: ast.AST
    message: str
    fix: Optional[Fix] = None
    related: tuple[Related, ...] = field(default=())


class Rule:
    code: ClassVar[str]
    name: ClassVar[str]
    summary: ClassVar[str]
    sinks: ClassVar[frozenset[str]]
    fixable: ClassVar[bool] = False
    opt_in: ClassVar[bool] = False
    options: ClassVar[Mapping[str, object]] = {}

    def check(self, sink, ctx: "RuleContext") -> Iterable[Report]:
        raise NotImplementedError

    @classmethod
    def documentation(cls) -> str:
        import inspect

        return inspect.cleandoc(cls.__doc__ or cls.summary)


@dataclass
class RuleContext:
    path: str
    source: SourceMap
    settings: Settings
    code: str

    @property
    def strict(self) -> bool:
        return self.settings.strict

    def option(self, name: str, default: object) -> object:
        return self.settings.option(self.code, name, default)

    def finding(self, report: Report) -> Finding:
        start, end = self.source.start(report.node), self.source.end(report.node)
        return Finding(self.path, start.line, start.column, end.line, end.column, self.code,
                       report.message, report.fix, report.related)
