"""`contiglint server`: a language server on stdio (pygls), for every editor that speaks LSP.

It lints the open buffer with the same engine and configuration as the CLI (the nearest
pyproject.toml with a `[tool.contiglint]` table, per-file-ignores included), and offers:

* diagnostics, pushed on open, change and save, or pulled (`textDocument/diagnostic`) by a
  client that says it pulls; related locations as `relatedInformation`; the rule's file (whose
  docstring is its documentation) as `codeDescription`;
* hover: the rule's documentation over a finding;
* code actions: one per fix (safe ones are preferred quick fixes, unsafe ones say so), "fix
  all" (`source.fixAll.contiglint`, safe fixes; unsafe ones too as a second action) and
  "add noqa" for each finding.

Open buffers are one project, as files linted together are on the command line: each buffer
is linted with the contracts (layout/contracts/) learned from the other open buffers, so a
call into a kernel wrapper open in another buffer is judged by what it requires (CTG114); when
a buffer's contracts change, the open buffers that import its module are linted again.

Linting runs in a worker thread, never on the event loop, and changes are debounced: a burst
of keystrokes costs one lint of the last version. A buffer that does not parse gets one
diagnostic (the syntax error); an internal error becomes a diagnostic too, never a crash.
"""
from __future__ import annotations

import ast
import asyncio
import bisect
import inspect
import json
import logging
import os
import sys
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Optional, Sequence
from urllib.parse import unquote, urlparse

from lsprotocol import types
from pygls.lsp.server import LanguageServer

from contiglint import __version__, noqa
from contiglint.config import ConfigError, Overrides, resolve
from contiglint.engine import LintResult, SourceError, fix_source, lint_source
from contiglint.findings import Edit, Finding, Fix, Position, line_starts
from contiglint.layout.contracts.naming import Names, module_name
from contiglint.layout.contracts.project import ProjectContracts
from contiglint.layout.contracts.project import resolve as resolve_contracts
from contiglint.layout.contracts.records import ModuleSummary
from contiglint.layout.contracts.summary import summarize
from contiglint.rules import all_rules

SOURCE = "contiglint"
DEBOUNCE_SECONDS = float(os.environ.get("CONTIGLINT_SERVER_DEBOUNCE", "0.15"))
FIX_ALL = f"{types.CodeActionKind.SourceFixAll.value}.{SOURCE}"
RULES = {rule.code: rule for rule in all_rules()}


@dataclass
class Linted:
    """The result for one version of one buffer, with the text it was computed on."""

    version: Optional[int]
    text: str
    result: LintResult
    settings: object = None
    starts: list[int] = field(default_factory=list)
    contracts: str = ""  # digest of what the buffer's functions require (for its importers)


@dataclass
class Module:
    """What one open buffer contributes to the others: its contract summary, and the
    modules it imports."""

    name: str
    summary: Optional[ModuleSummary]
    imports: frozenset[str]


class ContiglintServer(LanguageServer):
    def __init__(self) -> None:
        super().__init__(SOURCE, __version__,
                         text_document_sync_kind=types.TextDocumentSyncKind.Incremental)
        self.linted: dict[str, Linted] = {}
        self.pending: dict[str, asyncio.Task] = {}
        self.modules: dict[str, Module] = {}  # uri -> the open buffer as a module
        self.executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="contiglint-lint")

    # --- linting --------------------------------------------------------------------------
    def pulls(self) -> bool:
        """Whether the client asks for diagnostics itself (then none are pushed)."""
        capabilities = self.client_capabilities.text_document
        return capabilities is not None and capabilities.diagnostic is not None

    async def lint(self, uri: str, debounce: float = 0.0) -> Optional[Linted]:
        """Lint the buffer's current version off the event loop; None if it changed meanwhile."""
        if debounce:
            await asyncio.sleep(debounce)
        document = self.workspace.get_text_document(uri)
        version, text = document.version, document.source
        loop = asyncio.get_running_loop()
        linted = await loop.run_in_executor(self.executor, self.lint_in_project, uri, text,
                                            version)
        current = self.workspace.text_documents.get(uri)
        if current is None or current.version != version:
            return None  # closed or edited meanwhile: a newer lint is scheduled
        previous = self.linted.get(uri)
        self.linted[uri] = linted
        if (previous.contracts if previous is not None else "") != linted.contracts:
            self.relint_importers(uri)
        return linted

    def lint_in_project(self, uri: str, text: str, version: Optional[int]) -> Linted:
        """Lint one buffer with the contracts of the other open buffers (worker thread)."""
        path = uri_to_path(uri)
        module = buffer_module(path, text)
        self.modules[uri] = module
        others = [m.summary for u, m in list(self.modules.items())
                  if u != uri and m.summary is not None and u in self.workspace.text_documents]
        project = resolve_contracts(others).exported() if others else None
        linted = lint_buffer(path, text, version, project)
        linted.contracts = contracts_digest(module, others)
        return linted

    def relint_importers(self, uri: str) -> None:
        """The open buffers that import `uri`'s module: their findings may have changed."""
        module = self.modules.get(uri)
        if module is None:
            return
        for other, found in list(self.modules.items()):
            if other != uri and other in self.workspace.text_documents and any(
                    name == module.name or name.startswith(module.name + ".")
                    for name in found.imports):
                self.schedule(other, 0.0)

    def schedule(self, uri: str, debounce: float) -> None:
        """(Re)start the lint of `uri`, cancelling one that has not finished."""
        previous = self.pending.pop(uri, None)
        if previous is not None:
            previous.cancel()
        self.pending[uri] = asyncio.ensure_future(self._lint_and_publish(uri, debounce))

    async def _lint_and_publish(self, uri: str, debounce: float) -> None:
        try:
            linted = await self.lint(uri, debounce)
        except asyncio.CancelledError:
            return
        if linted is None:
            return
        if self.pulls():
            workspace = self.client_capabilities.workspace
            if workspace and workspace.diagnostics and workspace.diagnostics.refresh_support:
                self.workspace_diagnostic_refresh(None)  # tell the client to pull again
            return
        self.text_document_publish_diagnostics(types.PublishDiagnosticsParams(
            uri=uri, version=linted.version, diagnostics=self.diagnostics(uri, linted)))

    async def current(self, uri: str) -> Linted:
        """The result for the buffer as it is now (linting it if needed)."""
        document = self.workspace.get_text_document(uri)
        linted = self.linted.get(uri)
        if linted is not None and linted.version == document.version and \
                linted.text == document.source:
            return linted
        while True:
            linted = await self.lint(uri)
            if linted is not None:
                return linted

    # --- conversions ------------------------------------------------------------------------
    def position(self, uri: str, linted: Linted, line: int, column: int) -> types.Position:
        """A 1-based line and character column -> an LSP position in the client's units."""
        text = linted.text
        starts = linted.starts
        if line > len(starts):
            line, column = len(starts), 1
        start = starts[line - 1]
        end = starts[line] if line < len(starts) else len(text)
        prefix = text[start:min(start + column - 1, end)].rstrip("\r\n") \
            if column > 1 else ""
        codec = self.workspace.get_text_document(uri).position_codec
        return types.Position(line=line - 1, character=codec.client_num_units(prefix))

    def range(self, uri: str, linted: Linted, line: int, column: int, end_line: int,
              end_column: int) -> types.Range:
        return types.Range(start=self.position(uri, linted, line, column),
                           end=self.position(uri, linted, end_line, end_column))

    def diagnostics(self, uri: str, linted: Linted) -> list[types.Diagnostic]:
        out = [self.error_diagnostic(uri, linted, error) for error in linted.result.errors]
        for index, finding in enumerate(linted.result.findings):
            rule = RULES.get(finding.code)
            out.append(types.Diagnostic(
                range=self.range(uri, linted, finding.line, finding.column, finding.end_line,
                                 finding.end_column),
                message=finding.message,
                severity=types.DiagnosticSeverity.Warning
                if rule is not None and rule.severity == "warning"
                else types.DiagnosticSeverity.Error,
                code=finding.code,
                code_description=types.CodeDescription(href=rule_uri(rule)) if rule else None,
                source=SOURCE,
                related_information=[types.DiagnosticRelatedInformation(
                    location=types.Location(uri=uri, range=self.range(
                        uri, linted, r.line, r.column, r.line, r.column)),
                    message=r.message) for r in finding.related] or None,
                data={"index": index, "version": linted.version}))
        return out

    def error_diagnostic(self, uri: str, linted: Linted, error: SourceError) -> types.Diagnostic:
        position = self.position(uri, linted, error.line, error.column)
        return types.Diagnostic(
            range=types.Range(start=position, end=position), message=error.message,
            severity=types.DiagnosticSeverity.Error, source=SOURCE)

    def text_edits(self, uri: str, linted: Linted, edits: Sequence[Edit]) -> list[types.TextEdit]:
        return [types.TextEdit(range=self.range(uri, linted, e.start.line, e.start.column,
                                                e.end.line, e.end.column), new_text=e.content)
                for e in edits]

    def workspace_edit(self, uri: str, linted: Linted,
                       edits: Sequence[types.TextEdit]) -> types.WorkspaceEdit:
        return types.WorkspaceEdit(document_changes=[types.TextDocumentEdit(
            text_document=types.OptionalVersionedTextDocumentIdentifier(
                uri=uri, version=linted.version), edits=list(edits))])

    # --- code actions -----------------------------------------------------------------------
    def code_actions(self, uri: str, linted: Linted,
                     params: types.CodeActionParams) -> list[types.CodeAction]:
        wanted = params.context.only
        actions: list[types.CodeAction] = []
        diagnostics = self.diagnostics(uri, linted)
        quick = not wanted or any(kind.startswith(types.CodeActionKind.QuickFix)
                                  for kind in wanted)
        for finding, diagnostic in zip(linted.result.findings,
                                       diagnostics[len(linted.result.errors):]):
            if not quick or not overlaps(diagnostic.range, params.range):
                continue
            if finding.fix is not None and finding.fix.edits:
                actions.append(self.fix_action(uri, linted, finding, finding.fix, diagnostic))
            if (action := self.noqa_action(uri, linted, finding, diagnostic)) is not None:
                actions.append(action)
        # Fixing a whole file costs several lints: offered when asked for by kind, or when
        # the client resolves the edit only if the action is chosen.
        if any(FIX_ALL.startswith(kind) or kind.startswith(FIX_ALL) for kind in wanted or ()) \
                or not wanted and self.resolves_edits():
            actions.extend(self.fix_all_actions(uri, linted))
        return actions

    def fix_action(self, uri: str, linted: Linted, finding: Finding, fix: Fix,
                   diagnostic: types.Diagnostic) -> types.CodeAction:
        safe = fix.safety == "safe"
        title = f"{fix.description or 'fix'} ({finding.code})" + ("" if safe else " [unsafe]")
        return types.CodeAction(
            title=title, kind=types.CodeActionKind.QuickFix, diagnostics=[diagnostic],
            is_preferred=safe,
            edit=self.workspace_edit(uri, linted, self.text_edits(uri, linted, fix.edits)))

    def noqa_action(self, uri: str, linted: Linted, finding: Finding,
                    diagnostic: types.Diagnostic) -> Optional[types.CodeAction]:
        edit = noqa.suppression_edit(linted.text, finding)
        if edit is None:
            return None
        return types.CodeAction(
            title=f"Add `# noqa: {finding.code}` to line {edit.start.line}",
            kind=types.CodeActionKind.QuickFix, diagnostics=[diagnostic],
            edit=self.workspace_edit(uri, linted, self.text_edits(uri, linted, [edit])))

    def fix_all_actions(self, uri: str, linted: Linted) -> list[types.CodeAction]:
        """Fix all safe fixes, and all fixes; the edit is made when the client resolves the
        action (if it can), since fixing a whole file costs several lints."""
        actions = []
        safe = sum(1 for f in linted.result.findings if f.fix and f.fix.safety == "safe")
        fixable = sum(1 for f in linted.result.findings if f.fix)
        for unsafe, count in ((False, safe), (True, fixable)):
            if not count or unsafe and fixable == safe:
                continue
            action = types.CodeAction(
                title="contiglint: fix all" + (" (unsafe fixes included)" if unsafe else
                                               " (safe fixes)"),
                kind=FIX_ALL + (".unsafe" if unsafe else ""),
                data={"uri": uri, "version": linted.version, "unsafe": unsafe})
            actions.append(action if self.resolves_edits() else self.resolve(action, linted))
        return actions

    def resolves_edits(self) -> bool:
        capabilities = self.client_capabilities.text_document
        action = capabilities.code_action if capabilities else None
        support = action.resolve_support if action else None
        return support is not None and "edit" in support.properties

    def resolve(self, action: types.CodeAction, linted: Linted) -> types.CodeAction:
        uri = action.data["uri"]
        fixed = fix_source(linted.text, uri_to_path(uri), linted.settings,
                           unsafe=bool(action.data["unsafe"]))
        edits = [] if fixed.text == linted.text else [whole_text_edit(linted.text, fixed.text)]
        action.edit = self.workspace_edit(uri, linted, self.text_edits(uri, linted, edits))
        return action

    # --- hover ------------------------------------------------------------------------------
    def hover(self, uri: str, linted: Linted, position: types.Position) -> Optional[types.Hover]:
        point = types.Range(start=position, end=position)
        for finding, diagnostic in zip(linted.result.findings,
                                       self.diagnostics(uri, linted)[len(linted.result.errors):]):
            rule = RULES.get(finding.code)
            if rule is not None and overlaps(diagnostic.range, point):
                body = (f"**{rule.code}** ({rule.name}): {finding.message}\n\n---\n\n"
                        f"{rule.documentation()}")
                return types.Hover(contents=types.MarkupContent(
                    kind=types.MarkupKind.Markdown, value=body), range=diagnostic.range)
        return None


def lint_buffer(path: str, text: str, version: Optional[int],
                project: Optional[ProjectContracts] = None) -> Linted:
    """What `contiglint PATH` reports for `text` saved at `path` (runs in the worker thread);
    `project`: the contracts of the other modules linted with it."""
    try:
        config = resolve(Overrides(), None, os.path.dirname(path) or ".")
        settings = config.settings_for(path)
        result = lint_source(text, path, settings, project=project)
    except ConfigError as error:
        settings, result = None, LintResult(errors=[SourceError(path, 1, 1, str(error),
                                                                "config")])
    except Exception as error:  # noqa: BLE001 - the server reports its bugs, it never dies
        settings, result = None, LintResult(errors=[SourceError(
            path, 1, 1, f"internal error: {type(error).__name__}: {error}; please report this "
            "bug with the file that caused it", "internal")])
    return Linted(version, text, result, settings, line_starts(text))


def buffer_module(path: str, text: str) -> Module:
    """The buffer's module name, contract summary (None when it does not parse) and the
    modules it imports (relative imports resolved)."""
    name = module_name(path)
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError, RecursionError):
        return Module(name, None, frozenset())
    package = path.endswith("__init__.py")
    try:
        summary = summarize(tree, name, path, package)
    except (RecursionError, ValueError):
        summary = None
    imports = set(Names(tree, name, package).local.values())
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            imports.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and not node.level and node.module:
            imports.add(node.module)
    return Module(name, summary, frozenset(imports))


def contracts_digest(module: Module, others: list[ModuleSummary]) -> str:
    """What the module's functions require, resolved with the other open modules (so that a
    wrapper's contract changes when the kernel it calls changes)."""
    if module.summary is None:
        return ""
    resolved = resolve_contracts(others + [module.summary])
    required = {key: resolved.functions[key].as_json()["required"]
                for key in sorted(module.summary.functions)
                if key in resolved.functions and resolved.functions[key].required}
    return json.dumps(required, sort_keys=True) if required else ""


def uri_to_path(uri: str) -> str:
    parsed = urlparse(uri)
    if parsed.scheme != "file":
        return os.path.join(os.getcwd(), "untitled.py")  # unsaved buffer: the cwd's config
    path = unquote(parsed.path)
    if os.name == "nt" and path.startswith("/"):
        path = path[1:]
    return path


def rule_uri(rule) -> str:
    """The rule's own file: its docstring is its documentation."""
    return Path(inspect.getfile(rule)).resolve().as_uri()


def overlaps(a: types.Range, b: types.Range) -> bool:
    def key(p: types.Position) -> tuple[int, int]:
        return (p.line, p.character)

    return key(a.start) <= key(b.end) and key(b.start) <= key(a.end)


def whole_text_edit(old: str, new: str) -> Edit:
    """One edit covering the text that differs (a fix-all result)."""
    starts = line_starts(old)
    first = 0
    while first < min(len(old), len(new)) and old[first] == new[first]:
        first += 1
    last = 0
    while last < min(len(old), len(new)) - first and old[-1 - last] == new[-1 - last]:
        last += 1

    def position(offset: int) -> Position:
        line = bisect.bisect_right(starts, offset)
        return Position(line, offset - starts[line - 1] + 1)

    return Edit(position(first), position(len(old) - last), new[first:len(new) - last])


def build() -> ContiglintServer:
    server = ContiglintServer()

    @server.feature(types.TEXT_DOCUMENT_DID_OPEN)
    def did_open(ls: ContiglintServer, params: types.DidOpenTextDocumentParams) -> None:
        ls.schedule(params.text_document.uri, 0.0)

    @server.feature(types.TEXT_DOCUMENT_DID_CHANGE)
    def did_change(ls: ContiglintServer, params: types.DidChangeTextDocumentParams) -> None:
        ls.schedule(params.text_document.uri, DEBOUNCE_SECONDS)

    @server.feature(types.TEXT_DOCUMENT_DID_SAVE)
    def did_save(ls: ContiglintServer, params: types.DidSaveTextDocumentParams) -> None:
        ls.schedule(params.text_document.uri, 0.0)

    @server.feature(types.TEXT_DOCUMENT_DID_CLOSE)
    def did_close(ls: ContiglintServer, params: types.DidCloseTextDocumentParams) -> None:
        uri = params.text_document.uri
        task = ls.pending.pop(uri, None)
        if task is not None:
            task.cancel()
        closed = ls.linted.pop(uri, None)
        if closed is not None and closed.contracts:
            ls.relint_importers(uri)  # its contracts leave the project
        ls.modules.pop(uri, None)
        if not ls.pulls():
            ls.text_document_publish_diagnostics(types.PublishDiagnosticsParams(
                uri=uri, diagnostics=[]))

    @server.feature(types.TEXT_DOCUMENT_DIAGNOSTIC, types.DiagnosticOptions(
        identifier=SOURCE, inter_file_dependencies=True, workspace_diagnostics=False))
    async def pull(ls: ContiglintServer, params: types.DocumentDiagnosticParams):
        uri = params.text_document.uri
        linted = await ls.current(uri)
        return types.RelatedFullDocumentDiagnosticReport(
            items=ls.diagnostics(uri, linted), result_id=f"{linted.version}")

    @server.feature(types.TEXT_DOCUMENT_CODE_ACTION, types.CodeActionOptions(
        code_action_kinds=[types.CodeActionKind.QuickFix, FIX_ALL], resolve_provider=True))
    async def code_action(ls: ContiglintServer, params: types.CodeActionParams):
        uri = params.text_document.uri
        linted = await ls.current(uri)
        loop = asyncio.get_running_loop()
        # the edits of a statement fix are made on demand (LibCST): off the event loop too
        return await loop.run_in_executor(ls.executor, ls.code_actions, uri, linted, params)

    @server.feature(types.CODE_ACTION_RESOLVE)
    async def resolve(ls: ContiglintServer, action: types.CodeAction):
        data = action.data or {}
        uri = data.get("uri")
        if uri is None or uri not in ls.workspace.text_documents:
            return action
        linted = await ls.current(uri)
        if linted.version != data.get("version"):
            return action  # the buffer changed since: no edit is better than a wrong one
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(ls.executor, ls.resolve, action, linted)

    @server.feature(types.TEXT_DOCUMENT_HOVER)
    async def hover(ls: ContiglintServer, params: types.HoverParams):
        uri = params.text_document.uri
        return ls.hover(uri, await ls.current(uri), params.position)

    return server


def main(argv: Optional[Sequence[str]] = None) -> int:
    argv = list(argv or [])
    if argv and argv[0] in ("-h", "--help"):
        print("usage: contiglint server\n\nRun the contiglint language server on stdin/stdout "
              "(LSP). Configure your editor to start `contiglint server` for Python files.")
        return 0
    if argv:
        print(f"contiglint server: unknown argument {argv[0]!r} (it takes none)",
              file=sys.stderr)
        return 2
    logging.basicConfig(stream=sys.stderr, level=logging.WARNING)
    build().start_io()
    return 0
