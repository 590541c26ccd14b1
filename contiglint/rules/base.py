"""The contract every rule fulfils. A rule reads sinks from the flow pass; it never walks the tree.

A rule is a class with a code, a name, a one-line summary, the sink kinds it reads, and a
docstring that is its user documentation (`contiglint rule CODE` prints it). `check()` turns a
sink into zero or more reports; `RuleContext` turns reports into findings with positions.
"""
from __future__ import annotations

import ast
from dataclasses import dataclass, field
from functools import cached_property
from typing import ClassVar, Iterable, Mapping, Optional, Sequence

from contiglint.findings import Finding, Fix, Position, Related
from contiglint.layout.syntax.index import ModuleIndex
from contiglint.layout.syntax.names import ImportMap
from contiglint.layout.syntax.text import Text
from contiglint.layout.model.path_conditions import NO_CONDITIONS, PathConditions
from contiglint.layout.model.values import Kind
from contiglint.layout.model.witness import Witness, noncontiguous_witness, overlap_witness
from contiglint.rules import precision
from contiglint.settings import Settings
from contiglint.source import SourceMap


@dataclass
class Report:
    node: ast.AST
    message: str
    fix: Optional[Fix] = None
    related: tuple[Related, ...] = field(default=())
    witness: Optional[Witness] = None  # where torch fails; shown as a note at the sink



@dataclass(frozen=True)
class Option:
    """A rule option (`[tool.contiglint.CTGnnn] name = value`): its default, the values it
    accepts (empty: any value of the default's type) and a one-line description."""

    default: object
    choices: Sequence[object] = ()
    help: str = ""

    def problem(self, value: object) -> Optional[str]:
        """Why `value` is not acceptable, or None."""
        expected = type(self.default)
        if not isinstance(value, expected) or isinstance(value, bool) != isinstance(
                self.default, bool):
            return f"must be {_describe(self)}, not {value!r}"
        if self.choices and value not in self.choices:
            return f"must be {_describe(self)}, not {value!r}"
        return None


def _describe(option: Option) -> str:
    if option.choices:
        return "one of " + ", ".join(repr(choice) for choice in option.choices)
    return {bool: "true or false", int: "an integer", str: "a string"}.get(
        type(option.default), type(option.default).__name__)


FIX_SAFETIES = ("none", "safe", "unsafe", "safe or unsafe")
SEVERITIES = ("error", "warning")


class Rule:
    """`fix_safety` is what `--fix` can do for its findings: "none", "safe", "unsafe", or
    "safe or unsafe" (the safety depends on the finding or on an option). `severity` is
    "error" for crashes and corrupted or lost data, "warning" for wasted copies, memory or
    time."""

    code: ClassVar[str]
    name: ClassVar[str]
    summary: ClassVar[str]
    sinks: ClassVar[frozenset[str]]
    # the kinds of the other sinks `check` looks at through `RuleContext.sinks` (CTG110: is
    # the `.contiguous()` result fed to a view?); the flow pass records only the kinds that
    # the enabled rules name in `sinks` or here
    reads: ClassVar[frozenset[str]] = frozenset()
    fix_safety: ClassVar[str] = "none"
    severity: ClassVar[str] = "error"
    # opt-in by design (CTG113), whatever its precision; whether a rule runs by default is
    # its status in the registry (rules/registry.py), which also makes a rule measured below
    # the precision policy a preview rule
    opt_in: ClassVar[bool] = False
    options: ClassVar[Mapping[str, Option]] = {}
    tokens: ClassVar[Optional[frozenset[str]]] = None  # prefilter; default: the sinks' tokens
    # identifiers of which the code must name one for a sink this rule reports (the last
    # part of a sink function's qualified name, which every spelling of a call to it names:
    # `dist.all_reduce`, `from torch.distributed import all_reduce as ar`); None: no such need
    names: ClassVar[Optional[frozenset[str]]] = None

    def check(self, sink, ctx: "RuleContext") -> Iterable[Report]:
        raise NotImplementedError

    @classmethod
    def may_fire(cls, index: ModuleIndex, settings: Settings) -> bool:
        """A look at the module's syntax (its shared walk) after the prefilter: False when
        none of the sinks this rule reports can be in it (under `settings`: strict mode, the
        rule's options). A module
        whose enabled rules all say so (or hold none of their tokens) is not analysed. By
        default: the code names one of `names` (the last parts of the qualified functions of
        the rule's sinks) in its dotted names, when the rule has them."""
        return cls.names is None or not cls.names.isdisjoint(index.dotted_names)

    @classmethod
    def may_fire_text(cls, text: Text, settings: Settings) -> bool:
        """`may_fire` asked of the text before it is parsed (layout/syntax/text.py), for a
        text that holds one of the rule's tokens: False only where `may_fire` would be False
        on any syntax the text can parse to, so that the text need not be parsed for this
        rule. By default: the text spells one of `names` as a word (every dotted name of the
        code does)."""
        return cls.names is None or text.names_any(cls.names)

    @classmethod
    def prefilter_tokens(cls) -> frozenset[str]:
        """Substrings of which a file must hold one for this rule to fire."""
        from contiglint.layout.sinks.records import tokens_for

        return cls.tokens if cls.tokens is not None else tokens_for(cls.sinks)

    @classmethod
    def documentation(cls) -> str:
        import inspect

        return inspect.cleandoc(cls.__doc__ or cls.summary) + "\n\n" + \
            precision.section(cls.code, by_design=cls.opt_in)


class ParsedModule:
    """The module as the rules see it: the syntax tree the flow pass analysed, its import map,
    and, built on first use and shared by every rule, each node's parent and the calls by
    position. Rules find a sink's statement or the call at an origin here instead of parsing
    the source again or walking the tree."""

    def __init__(self, tree: ast.Module, names: Optional[ImportMap] = None,
                 index: Optional[ModuleIndex] = None) -> None:
        """`index`: the tree's walk (made on first use when not given), whose parent links
        `parent` reads."""
        self.tree = tree
        self._names = names
        self._index = index
        self._calls: Optional[dict[tuple[int, int], ast.Call]] = None

    @property
    def names(self) -> ImportMap:
        """The module's import map (built on first use: most modules have no finding)."""
        if self._names is None:
            self._names = ImportMap(self.tree)
        return self._names

    @cached_property
    def torch_alias(self) -> Optional[str]:
        """The name under which the module imports `torch` at top level (`torch`, `th`...)."""
        alias = None
        for node in self.tree.body:
            if isinstance(node, ast.Import):
                for name in node.names:
                    if name.name == "torch":
                        alias = name.asname or "torch"
                    elif name.name.startswith("torch.") and name.asname is None:
                        alias = alias or "torch"
        return alias

    @property
    def index(self) -> ModuleIndex:
        """The tree's walk (made on first use when the caller gave none)."""
        if self._index is None:
            self._index = ModuleIndex(self.tree)
        return self._index

    def parent(self, node: ast.AST) -> Optional[ast.AST]:
        return self.index.parent(node)

    def ancestors(self, node: ast.AST) -> Iterable[ast.AST]:
        parent = self.parent(node)
        while parent is not None:
            yield parent
            parent = self.parent(parent)

    def contains(self, outer: ast.AST, node: ast.AST) -> bool:
        return node is outer or any(a is outer for a in self.ancestors(node))

    def statement(self, node: ast.AST, within: Optional[ast.AST] = None) -> Optional[ast.stmt]:
        """The innermost statement holding `node` (`node` itself if it is one), below
        `within` (the module when None); None when `node` is not in the tree."""
        root = within if within is not None else self.tree
        if self.parent(node) is None:
            return None
        for candidate in (node, *self.ancestors(node)):
            if candidate is root:
                return None
            if isinstance(candidate, ast.stmt):
                return candidate if self.contains(root, candidate) else None
        return None

    def call_at(self, line: int, column: int, source: SourceMap) -> Optional[ast.Call]:
        """The call that starts at (line, column), or whose method name does (one column to
        the left: the `.` of `.expand(`), as origins name them."""
        if self._calls is None:
            self._calls = {}
            for node in self.index.calls:  # in `ast.walk` order: the first at a place wins
                if isinstance(node.func, ast.Attribute):
                    name, _ = source.attribute_name(node.func)
                    self._calls.setdefault((name.line, max(name.column - 1, 1)), node)
                start = source.start(node)
                self._calls.setdefault((start.line, start.column), node)
        return self._calls.get((line, column))


@dataclass
class RuleContext:
    path: str
    source: SourceMap
    settings: Settings
    code: str
    module: ParsedModule  # the tree the flow pass analysed, and its import map
    sinks: tuple = ()  # every sink of the module: one site may be reached in several contexts

    @property
    def strict(self) -> bool:
        return self.settings.strict

    def reportable(self, tensor) -> bool:
        """The sink rules' policy: a tensor shown non-contiguous, or of unknown layout when the
        user asked for strict mode."""
        return tensor is not None and (tensor.noncontiguous or
                                       (self.strict and tensor.kind is Kind.UNKNOWN))

    def proven(self, tensor, rows: bool = False, path: PathConditions = NO_CONDITIONS) \
            -> tuple[bool, Optional[Witness]]:
        """Whether to report a tensor that a sink needs contiguous (with `rows`: unit-stride
        rows), and the witness: concrete sizes, from its geometry or at the least rank the ops
        before it need, under which it is not (and which the path to the sink keeps: `path`).
        Without a witness, only in strict mode."""
        if not self.reportable(tensor):
            return False, None
        geometry = tensor.witness_geometry
        witness = noncontiguous_witness(geometry, rows, path) \
            if geometry is not None and tensor.noncontiguous else None
        return witness is not None or self.strict, witness

    def overlapping(self, tensor, path: PathConditions = NO_CONDITIONS) \
            -> tuple[bool, Optional[Witness]]:
        """Whether to report an expanded tensor that an in-place write or module state needs
        free of aliases, and the witness: concrete sizes under which two of its elements are
        one memory location (`x.expand(n, -1)` of x of unknown sizes may expand nothing).
        Without a witness, only in strict mode."""
        geometry = tensor.witness_geometry
        witness = overlap_witness(geometry, path) if geometry is not None else None
        return witness is not None or self.strict, witness

    def same_site(self, sink) -> list:
        """The sinks of `sink`'s kind at its node: one per calling context and loop round."""
        return self._sites[sink.node, sink.kind]

    def sinks_at(self, node: ast.AST, kind: str) -> list:
        """The sinks of `kind` recorded at `node` (none where the flow pass made none)."""
        return self._sites.get((node, kind), [])

    def is_target(self, node: ast.AST, kinds: frozenset[str]) -> bool:
        """Is `node` the tensor expression at a sink of one of `kinds`?"""
        try:
            targets = self._targets[kinds]
        except KeyError:
            targets = self._targets[kinds] = {s.target for s in self.sinks if s.kind in kinds}
        return node in targets

    # Both are asked once per sink: the sinks are grouped once per module and rule, so the
    # questions cost the same per sink in a module of any size (syntax nodes hash by identity).
    @cached_property
    def _sites(self) -> dict:
        sites: dict = {}
        for sink in self.sinks:
            sites.setdefault((sink.node, sink.kind), []).append(sink)
        return sites

    @cached_property
    def _targets(self) -> dict:
        return {}

    def option(self, name: str) -> object:
        from contiglint.rules import rule_by_code

        rule = rule_by_code(self.code)
        return self.settings.option(self.code, name, rule.options[name].default)

    def finding(self, report: Report) -> Finding:
        """A method call is reported at its method (`.view` in `x.transpose(1, 2).view(n)`),
        so a finding in a chain that spans lines points at the line of the sink."""
        start, end = self.source.start(report.node), self.source.end(report.node)
        node = report.node
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            start = self.source.attribute_name(node.func)[0]
            if start.column > 1 and self.source.line(start.line)[start.column - 2] == ".":
                start = Position(start.line, start.column - 1)
        related = report.related
        if report.witness is not None:
            related += (Related(start.line, start.column,
                                f"witness: {report.witness.describe()}"),)
        return Finding(self.path, start.line, start.column, end.line, end.column, self.code,
                       report.message, report.fix, related, report.witness)
