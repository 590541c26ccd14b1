"""Lint one source text: parse, run the flow pass once, let every enabled rule read its sinks.

Pure: text in, findings out; no file system. The CLI, the flake8 plugin and the verifier all
call this module, so none of them re-implements analysis.
"""
from __future__ import annotations

import ast
import gc
import symtable
import warnings
from dataclasses import dataclass, field
from typing import Optional

from contiglint import expected, noqa
from contiglint.findings import Finding, apply_fixes
from contiglint.layout.contracts.project import ProjectContracts
from contiglint.layout.syntax.index import FunctionNode, ModuleIndex
from contiglint.layout.syntax.text import Text
from contiglint.layout.flow.program import analyze_module
from contiglint.prefilter import (
    as_python_reads, holds_tokens, live_tokens, only_outside_code, per_rule_set,
)
from contiglint.rules import enabled_rules
from contiglint.rules.base import ParsedModule, Rule, RuleContext
from contiglint.segments import is_valid, parse_tree, segmented, segments
from contiglint.settings import Settings
from contiglint.source import SourceMap, text_digest


@dataclass(frozen=True)
class SourceError:
    """A problem with the input or with contiglint itself, reported instead of findings."""

    path: str
    line: int
    column: int
    message: str
    kind: str = "syntax"  # "syntax" | "internal" | "io" | "limit"


@dataclass
class LintResult:
    findings: list[Finding] = field(default_factory=list)
    errors: list[SourceError] = field(default_factory=list)


@dataclass
class FixResult:
    text: str
    applied: int
    result: LintResult
    fixed: list[Finding] = field(default_factory=list)  # the findings whose fix was applied


# The sinks made from contracts (layout/sinks/contract_calls.py). A rule that reads none of
# them (every rule but CTG114; CTG106 reads the contracts only with CTG114 on) cannot see
# a contract: without one, the project's contracts and the module's own are not computed.
CONTRACT_SINKS = frozenset({"contract"})


def reads_contracts(rules: list[Rule]) -> bool:
    return any(rule.sinks & CONTRACT_SINKS for rule in rules)


_SINK_KINDS: dict[tuple[type, ...], frozenset[str]] = {}


def sink_kinds(rules: list[Rule]) -> frozenset[str]:
    """The kinds of sink that `rules` read (`Rule.sinks` and `Rule.reads`): the only ones the
    flow pass records for them."""
    return per_rule_set(_SINK_KINDS, rules, lambda chosen: frozenset().union(
        *(rule.sinks | rule.reads for rule in chosen)))


def parse(text: str, path: str) -> tuple[Optional[ast.Module], Optional[SourceError]]:
    tree, error = parse_tree(text, path)
    if error is None:
        return tree, None
    message = f"cannot parse: {error.msg}" if error.msg else "cannot parse"
    return None, SourceError(path, error.lineno or 1, max(error.offset or 1, 1), message)


def size_error(text: str, path: str, settings: Settings) -> Optional[SourceError]:
    """The error for a text over `max-file-size` (see `settings.DEFAULT_MAX_FILE_SIZE`): it is
    neither parsed nor checked, so its syntax tree never takes the memory."""
    limit = settings.max_file_size
    if not limit or len(text) <= limit // 4:  # a character is at most 4 bytes of UTF-8
        return None
    size = len(text) if text.isascii() else len(text.encode("utf-8", "surrogatepass"))
    if size <= limit:
        return None
    return SourceError(path, 1, 1, f"not checked: the file is {size} bytes, over the "
                       f"max-file-size limit of {limit} bytes (raise `max-file-size` in "
                       "[tool.contiglint] to check it; 0 for no limit)", "limit")


def syntax_error(text: str, path: str) -> Optional[SourceError]:
    """What `parse` reports of `text`, without making its syntax tree: for a text that no rule
    analyses. Python's symbol table is built from the same parser's tree but never turns it
    into Python objects, at about three fifths of the cost; it also runs checks of its own
    (`nonlocal` at module level, a repeated parameter), so any error it raises is reported by
    `parse` itself. It compiles nothing and runs nothing."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            symtable.symtable(text, path, "exec")
        return None
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return parse(text, path)[1]


def lint_source(text: str, path: str = "-", settings: Settings = Settings(),
                tree: Optional[ast.Module] = None,
                project: Optional[ProjectContracts] = None,
                index: Optional[ModuleIndex] = None, observer=None) -> LintResult:
    """`project`: the contracts of the other modules of the linted tree (project_pass.py), so
    calls into them are judged by what the callee requires; `tree` and `index`: the text's
    syntax tree and its walk, when the caller has them; `observer`: see `lint_tree` (it sees
    nothing when the text is not analysed)."""
    if noqa.skips_file(text):
        return LintResult()
    too_large = size_error(text, path, settings)
    if too_large:
        return LintResult(errors=[too_large])
    rules = enabled_rules(settings)
    searched = as_python_reads(text)
    found, analysed = _prefiltered(text, searched, rules, settings, project)
    if not analysed:
        # No token, or only words of rules whose functions the text never names as a word:
        # nothing to analyse, but a file that does not parse is still reported: silence
        # would read as "this file is fine".
        if tree is None and segmented(text):
            return LintResult(errors=_segment_errors(text, path, settings))
        error = syntax_error(text, path) if tree is None else None
        return LintResult(errors=[error] if error else [])
    if tree is None and segmented(text):
        return _lint_segments(text, path, settings, rules, found, searched, project, observer)
    if tree is None:
        tree, error = parse(text, path)
        if error:
            return LintResult(errors=[error])
    return _lint_parsed(tree, text, path, settings, rules, found, searched, project, index,
                        observer)


def needs_tree(text: str, settings: Settings, project: Optional[ProjectContracts]) -> bool:
    """Would `lint_source` parse the text to analyse it, not only to report a syntax error?"""
    if noqa.skips_file(text) or size_error(text, "-", settings):
        return False
    return _prefiltered(text, as_python_reads(text), enabled_rules(settings), settings,
                        project)[1]


def _prefiltered(text: str, searched: str, rules: list[Rule], settings: Settings,
                 project: Optional[ProjectContracts]) -> tuple[Optional[set[str]], bool]:
    """The prefilter tokens found in the text (None: one that is not a word, which is in the
    code: see `only_outside_code`) and whether any rule may fire on it, before it is parsed.
    A rule that reads only contracts has no sink in a module whose summary was made from its
    text (layout/contracts/evidence.py) when none of its words names a function with a
    contract (`_may_meet_contract`)."""
    own = project.own if project is not None else None
    if own is not None and own.unparsed and not settings.strict and \
            project.own_digest == text_digest(text) and \
            not project.names_a_contract(own.names):
        rules = [rule for rule in rules if not rule.sinks <= CONTRACT_SINKS]
    return live_tokens(rules, searched, Text.of(searched), settings)


def _lint_parsed(tree: ast.Module, text: str, path: str, settings: Settings, rules: list[Rule],
                 found: Optional[set[str]], searched: str,
                 project: Optional[ProjectContracts], index: Optional[ModuleIndex], observer,
                 source: Optional[SourceMap] = None) -> LintResult:
    if index is None:
        index = ModuleIndex(tree)
    if found is not None and only_outside_code(index, found):
        return LintResult()
    if not any(holds_tokens(rule, searched) and rule.may_fire(index, settings) and
               _may_meet_contract(rule, index, settings, project) for rule in rules):
        return LintResult()  # no enabled rule can fire on this module's syntax: not analysed
    return lint_tree(tree, text, path, settings, rules, project, index, observer, source)


def _may_meet_contract(rule: Rule, index: ModuleIndex, settings: Settings,
                       project: Optional[ProjectContracts]) -> bool:
    """A rule that reads only contract sinks (CTG114) has one only at a call of a function
    with a contract (`ProjectContracts.names_a_contract`, an answer the project run's first
    pass records) or, by default, of an extension module the code passes `.contiguous()`
    tensors (the module summary's `extensions`). Strict mode reports any call of an
    extension, which this does not look for, and a lint without the project's contracts
    learns the module's own while it runs."""
    if project is None or settings.strict or not rule.sinks <= CONTRACT_SINKS:
        return True
    own = project.own  # its `extensions`: the names bound to extension modules, as above
    if any(own.extensions.values()) if own is not None else \
            any(isinstance(node, FunctionNode) for node in index.nodes):
        return True  # (a module whose summary the run did not make: any function may)
    return project.names_a_contract(index.names)


def _lint_segments(text: str, path: str, settings: Settings, rules: list[Rule],
                   found: Optional[set[str]], searched: str,
                   project: Optional[ProjectContracts], observer) -> LintResult:
    """A large text, one segment at a time (segments.py): each segment's tree is dropped once
    it is analysed. A segment that cannot be parsed makes the result its error alone, as a
    text that does not parse gives no findings."""
    result, source = LintResult(), SourceMap(text)
    for segment in segments(text, path, bool(settings.max_file_size)):
        if segment.error is not None:
            return LintResult(errors=[_segment_error(segment, path)])
        part = _lint_parsed(segment.tree, text, path, settings, rules, found, searched,
                            project, None, observer, source)
        result.findings.extend(part.findings)
        result.errors.extend(part.errors)
        del segment, part
        # A segment's analysis leaves reference cycles (frames and the program they run in),
        # which a run's thresholds (runner.GC_THRESHOLDS) would keep until far later: every
        # segment's would pile up. Freed here, memory stays that of one segment.
        gc.collect()
    return result


def _segment_errors(text: str, path: str, settings: Settings) -> list[SourceError]:
    """What parsing a large text a segment at a time reports (nothing when every segment
    parses)."""
    return [_segment_error(segment, path)
            for segment in segments(text, path, bool(settings.max_file_size))
            if segment.error is not None]


def _segment_error(segment, path: str) -> SourceError:
    return SourceError(path, segment.line, segment.column, segment.error,
                       "limit" if segment.over_limit else "syntax")


def lint_tree(tree: ast.Module, text: str, path: str, settings: Settings,
              rules: Optional[list[Rule]] = None,
              project: Optional[ProjectContracts] = None,
              index: Optional[ModuleIndex] = None, observer=None,
              source: Optional[SourceMap] = None) -> LintResult:
    """`observer`: records the abstract values the flow pass computes (`contiglint explain`,
    editor hovers: layout/explain/observe.py); `source`: the text's SourceMap, where the
    caller has one."""
    rules = enabled_rules(settings) if rules is None else rules
    source = source or SourceMap(text)
    result = LintResult()
    try:
        index = index or ModuleIndex(tree)
        sinks = analyze_module(tree, source, path, project, index, reads_contracts(rules),
                               sink_kinds(rules), observer)
    except RecursionError:
        result.errors.append(SourceError(
            path, 1, 1, "too deeply nested to analyze (an expression or elif chain hundreds "
            "of levels deep exceeds the recursion limit); the file was not checked", "internal"))
        return result
    except Exception as error:  # noqa: BLE001 - one bad file must not stop the run
        result.errors.append(_internal(path, "flow analysis", error))
        return result
    by_kind: dict[str, list] = {}
    for sink in sinks:
        by_kind.setdefault(sink.kind, []).append(sink)
    seen: dict[tuple, int] = {}  # a site's key -> where its finding is in result.findings
    module = ParsedModule(tree, index.import_map, index)
    for rule in rules:
        context = RuleContext(path, source, settings, rule.code, module, tuple(sinks))
        try:
            for kind in sorted(rule.sinks):
                for sink in by_kind.get(kind, ()):
                    for report in rule.check(sink, context):
                        finding = context.finding(report)
                        key = (finding.code, finding.line, finding.column, finding.end_line,
                               finding.end_column)
                        if key not in seen:
                            seen[key] = len(result.findings)
                            result.findings.append(finding)
                        elif finding.witness is not None and \
                                result.findings[seen[key]].witness is None:
                            # a site reached in several calling contexts (strict mode reports
                            # those without a witness too): the one with a witness is shown
                            result.findings[seen[key]] = finding
        except Exception as error:  # noqa: BLE001
            result.errors.append(_internal(path, rule.code, error))
    if result.findings:  # most analysed modules have none: their blocks are not looked for
        findings = expected.outside(result.findings,
                                    expected.expected_failure_spans(tree, text))
        result.findings = sorted(noqa.unsuppressed(findings, text), key=lambda f: f.sort_key)
    return result


def fix_source(text: str, path: str = "-", settings: Settings = Settings(),
               unsafe: bool = False, rounds: int = 10,
               project: Optional[ProjectContracts] = None) -> FixResult:
    """Apply fixes until none is left (or `rounds` is reached); never returns unparsable text."""
    applied_total = 0
    fixed: list[Finding] = []
    result = lint_source(text, path, settings, project=project)
    for _ in range(rounds):
        fixable = [f for f in result.findings if f.fix and (f.fix.safety == "safe" or unsafe)]
        if not fixable:
            break
        accepted: list = []
        candidate, applied = apply_fixes(text, [f.fix for f in fixable], accepted)
        if applied == 0 or candidate == text:
            break
        if not is_valid(candidate, path):
            result.errors.append(SourceError(
                path, 1, 1, "a fix produced code that does not parse; the file was left as it "
                "was (please report this bug)", "internal"))
            break
        text, applied_total = candidate, applied_total + applied
        chosen = {id(fix) for fix in accepted}
        fixed.extend(f for f in fixable if id(f.fix) in chosen)
        result = lint_source(text, path, settings, project=project)
    return FixResult(text, applied_total, result, fixed)


def _internal(path: str, where: str, error: Exception) -> SourceError:
    return SourceError(
        path, 1, 1,
        f"internal error in {where}: {type(error).__name__}: {error}; please report this bug "
        "with the file that caused it", "internal")
