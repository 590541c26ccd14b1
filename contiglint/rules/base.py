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
from contiglint.layout.values import Kind
from contiglint.rules import precision
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
    opt_in: ClassVar[bool] = False  # runs only when its full code is selected
    preview: ClassVar[bool] = False  # opt-in because its measured precision is below the policy
    options: ClassVar[Mapping[str, object]] = {}
    tokens: ClassVar[Optional[frozenset[str]]] = None  # prefilter; default: the sinks' tokens

    def __init_subclass__(cls, **kwargs) -> None:
        super().__init_subclass__(**kwargs)
        if "code" in cls.__dict__ and precision.measured(cls.code).preview:
            cls.preview = cls.opt_in = True

    def check(self, sink, ctx: "RuleContext") -> Iterable[Report]:
        raise NotImplementedError

    @classmethod
    def prefilter_tokens(cls) -> frozenset[str]:
        """Substrings of which a file must hold one for this rule to fire."""
        from contiglint.layout.sinks import tokens_for

        return cls.tokens if cls.tokens is not None else tokens_for(cls.sinks)

    @classmethod
    def documentation(cls) -> str:
        import inspect

        return inspect.cleandoc(cls.__doc__ or cls.summary) + "\n\n" + \
            precision.section(cls.code)


@dataclass
class RuleContext:
    path: str
    source: SourceMap
    settings: Settings
    code: str
    sinks: tuple = ()  # every sink of the module: one site may be reached in several contexts

    @property
    def strict(self) -> bool:
        return self.settings.strict

    def reportable(self, tensor) -> bool:
        """The sink rules' policy: a tensor shown non-contiguous, or of unknown layout when the
        user asked for strict mode."""
        return tensor is not None and (tensor.noncontiguous or
                                       (self.strict and tensor.kind is Kind.UNKNOWN))

    def same_site(self, sink) -> list:
        """The sinks of `sink`'s kind at its node: one per calling context and loop round."""
        return [s for s in self.sinks if s.node is sink.node and s.kind == sink.kind]

    def option(self, name: str, default: object) -> object:
        return self.settings.option(self.code, name, default)

    def finding(self, report: Report) -> Finding:
        start, end = self.source.start(report.node), self.source.end(report.node)
        return Finding(self.path, start.line, start.column, end.line, end.column, self.code,
                       report.message, report.fix, report.related)
