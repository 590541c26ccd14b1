"""`contiglint server`: a language server on stdio (pygls), for every editor that speaks LSP.

It lints the open buffer with the same engine and configuration as the CLI (the nearest
pyproject.toml with a `[tool.contiglint]` table, per-file-ignores included), and offers:

* diagnostics, pushed on open, change and save, or pulled (`textDocument/diagnostic`) by a
  client that says it pulls; related locations as `relatedInformation`; the rule's file (whose
  docstring is its documentation) as `codeDescription`;
* hover: over a tensor name, its inferred layout (shape, strides, contiguity and the ops that
  made it: server_layout.py); over a finding, the rule's documentation;
* inlay hints after the ops that break contiguity, when the client turns them on with the
  initialization option `{"inlayHints": true}`;
* code actions: one per fix, "fix all" and "add noqa" for each finding (server_actions.py).

Open buffers are one project, as files linted together are on the command line: each buffer
is linted with the contracts (layout/contracts/) learned from the other open buffers, so a
call into a kernel wrapper open in another buffer is judged by what it requires (CTG114); when
a buffer's contracts change, the open buffers that import its module are linted again.

Linting runs in a worker thread, never on the event loop, and changes are debounced: a burst
of keystrokes costs one lint of the last version. A buffer that does not parse gets one
diagnostic (the syntax error); an internal error becomes a diagnostic too, never a crash.
"""
from __future__ import annotations

import asyncio
import inspect
import logging
import os
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Optional, Sequence

from lsprotocol import types
from pygls.lsp.server import LanguageServer

from contiglint import __version__, server_layout
from contiglint.engine import SourceError
from contiglint.findings import Edit
from contiglint.layout.contracts.project import resolve as resolve_contracts
from contiglint.rules import all_rules
from contiglint.server_actions import FIX_ALL, CodeActions, overlaps, uri_to_path
from contiglint.server_buffers import (
    Linted, Module, buffer_module, contracts_digest, lint_buffer,
)
from contiglint.server_layout import LayoutFeatures

SOURCE = "contiglint"
DEBOUNCE_SECONDS = float(os.environ.get("CONTIGLINT_SERVER_DEBOUNCE", "0.15"))
RULES = {rule.code: rule for rule in all_rules()}


class ContiglintServer(CodeActions, LayoutFeatures, LanguageServer):
    def __init__(self) -> None:
        super().__init__(SOURCE, __version__,
                         text_document_sync_kind=types.TextDocumentSyncKind.Incremental)
        self.linted: dict[str, Linted] = {}
        self.pending: dict[str, asyncio.Task] = {}
        self.modules: dict[str, Module] = {}  # uri -> the open buffer as a module
        self.executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="contiglint-lint")
        self.layout_options = server_layout.LayoutOptions()

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

    # --- hover ------------------------------------------------------------------------------
    def hover(self, uri: str, linted: Linted, position: types.Position) -> Optional[types.Hover]:
        """The layout of the tensor name there, then the documentation of a finding there."""
        point = types.Range(start=position, end=position)
        parts, where = [], None
        found = self.layout_hover(uri, linted, position)
        if found is not None:
            parts.append(found[0])
            where = found[1]
        for finding, diagnostic in zip(linted.result.findings,
                                       self.diagnostics(uri, linted)[len(linted.result.errors):]):
            rule = RULES.get(finding.code)
            if rule is not None and overlaps(diagnostic.range, point):
                parts.append(f"**{rule.code}** ({rule.name}): {finding.message}\n\n---\n\n"
                             f"{rule.documentation()}")
                where = where or diagnostic.range
                break
        if not parts:
            return None
        return types.Hover(contents=types.MarkupContent(
            kind=types.MarkupKind.Markdown, value="\n\n---\n\n".join(parts)), range=where)


def rule_uri(rule) -> str:
    """The rule's own file: its docstring is its documentation."""
    return Path(inspect.getfile(rule)).resolve().as_uri()


def build() -> ContiglintServer:
    server = ContiglintServer()

    @server.feature(types.INITIALIZE)
    def initialize(ls: ContiglintServer, params: types.InitializeParams) -> None:
        ls.layout_options, problems = server_layout.read_options(params.initialization_options)
        for problem in problems:
            ls.window_show_message(types.ShowMessageParams(
                type=types.MessageType.Error, message=f"contiglint: {problem}"))

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

    @server.feature(types.TEXT_DOCUMENT_INLAY_HINT, types.InlayHintOptions())
    async def inlay_hint(ls: ContiglintServer, params: types.InlayHintParams):
        if not ls.layout_options.inlay_hints:
            return []
        uri = params.text_document.uri
        return ls.inlay_hints(uri, await ls.current(uri), params.range)

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
