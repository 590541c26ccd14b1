"""`contiglint server` end to end: a real LSP client (pytest-lsp) starts the server over stdio
with the capabilities of real editors (Emacs 29: push diagnostics, UTF-32 columns; Neovim
0.10: pull diagnostics, UTF-16, resolved code actions; VS Code 1.65: push, UTF-16), opens a
buffer, gets the CLI's findings for the same file and configuration, applies code actions and
sees the diagnostics go, and shuts the server down."""
from __future__ import annotations

import asyncio
import json
import sys
import time

import pytest

from tests.clitools import contiglint, environment

pytest_lsp = pytest.importorskip("pytest_lsp")  # the `test` extra installs it
from lsprotocol import types  # noqa: E402
from pytest_lsp.client import (  # noqa: E402
    DEFAULT_CLIENT_FEATURES, LanguageClient, default_converter, register_lsp_features,
)

MODEL = '''import torch
import torch.distributed as dist


def flatten(x):
    note, y = "\U0001F642", x.transpose(1, 2).view(2, 12)
    return note, y


def sync(x):
    g = x.t()
    dist.all_reduce(g)


def scale(w, xs):
    out = []
    for x in xs:
        out.append(x @ w.t().contiguous())
    return out
'''
CLIENTS = ["emacs@v29.1", "neovim@v0.10.0", "visual-studio-code@v1.65.2"]


@pytest.fixture
def project(tmp_path):
    # CTG101 is a preview rule: the project selects it, as a user would
    (tmp_path / "pyproject.toml").write_text(
        '[tool.contiglint]\nextend-select = ["CTG101"]\nignore = ["CTG109"]\n')
    path = tmp_path / "pkg" / "model.py"
    path.parent.mkdir()
    path.write_text(MODEL, encoding="utf-8")
    return tmp_path, path


def cli_findings(path) -> list[dict]:
    process = contiglint("--format", "json", "--no-cache", str(path), cwd=path.parent,
                         defaults=True)  # the project's own configuration, as the server reads it
    assert process.returncode in (0, 1), process.stderr
    return json.loads(process.stdout)


class Session:
    """A client connected to `python -m contiglint server`, with helpers to drive a buffer."""

    def __init__(self, client, spec: str) -> None:
        self.client, self.spec, self.version = client, spec, 0
        self.encoding = "utf-16"

    @classmethod
    async def start(cls, spec: str, cwd) -> "Session":
        config = pytest_lsp.ClientServerConfig(
            server_command=[sys.executable, "-m", "contiglint", "server"],
            server_env=environment(), client_factory=make_client)
        client = await config.start()
        session = cls(client, spec)
        result = await client.initialize_session(types.InitializeParams(
            capabilities=pytest_lsp.client_capabilities(spec),
            root_uri=cwd.as_uri(), workspace_folders=[
                types.WorkspaceFolder(uri=cwd.as_uri(), name="project")]))
        session.encoding = result.capabilities.position_encoding or "utf-16"
        session.result = result
        return session

    @property
    def pulls(self) -> bool:
        return self.client.capabilities.text_document.diagnostic is not None

    async def open(self, uri: str, text: str) -> None:
        self.version, self.text = 1, text
        self.client.text_document_did_open(types.DidOpenTextDocumentParams(
            types.TextDocumentItem(uri=uri, language_id="python", version=1, text=text)))

    async def change(self, uri: str, text: str) -> None:
        self.version += 1
        self.text = text
        self.client.text_document_did_change(types.DidChangeTextDocumentParams(
            text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=self.version),
            content_changes=[types.TextDocumentContentChangeWholeDocument(text=text)]))

    async def diagnostics(self, uri: str) -> list[types.Diagnostic]:
        """The diagnostics of the current version: pulled, or waited for as pushed."""
        if self.pulls:
            report = await self.client.text_document_diagnostic_async(
                types.DocumentDiagnosticParams(
                    text_document=types.TextDocumentIdentifier(uri=uri)))
            return list(report.items)
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            published = self.client.published.get(uri)
            if published and published[-1][0] == self.version:
                return list(published[-1][1])
            await asyncio.sleep(0.02)
        raise AssertionError(f"no diagnostics for version {self.version} of {uri}")

    async def actions(self, uri: str, diagnostic=None, only=None) -> list[types.CodeAction]:
        where = diagnostic.range if diagnostic else types.Range(
            start=types.Position(line=0, character=0), end=types.Position(line=0, character=0))
        actions = await self.client.text_document_code_action_async(types.CodeActionParams(
            text_document=types.TextDocumentIdentifier(uri=uri), range=where,
            context=types.CodeActionContext(diagnostics=[diagnostic] if diagnostic else [],
                                            only=only)))
        return list(actions or [])

    async def resolve(self, action: types.CodeAction) -> types.CodeAction:
        if action.edit is None:
            action = await self.client.code_action_resolve_async(action)
        return action

    def apply(self, uri: str, edit: types.WorkspaceEdit) -> str:
        [change] = edit.document_changes
        assert change.text_document.uri == uri and change.text_document.version == self.version
        text = self.text
        spans = sorted(((self.offset(text, e.range.start), self.offset(text, e.range.end),
                         e.new_text) for e in change.edits), reverse=True)
        for start, end, new in spans:
            text = text[:start] + new + text[end:]
        return text

    def offset(self, text: str, position: types.Position) -> int:
        lines = text.splitlines(keepends=True)
        start = sum(len(line) for line in lines[:position.line])
        line = lines[position.line] if position.line < len(lines) else ""
        units = 0
        for index, char in enumerate(line):
            if units >= position.character:
                return start + index
            units += self.units(char)
        return start + len(line)

    def units(self, char: str) -> int:
        if self.encoding == "utf-8":
            return len(char.encode("utf-8"))
        if self.encoding == "utf-16":
            return len(char.encode("utf-16-le")) // 2
        return 1


def make_client() -> LanguageClient:
    """pytest-lsp's test client, also keeping every publishDiagnostics with its version."""
    def published(client: LanguageClient, params: types.PublishDiagnosticsParams) -> None:
        client.diagnostics[params.uri] = params.diagnostics
        client.published.setdefault(params.uri, []).append((params.version, params.diagnostics))

    client = LanguageClient(converter_factory=default_converter)
    client.published = {}
    register_lsp_features(client, {**DEFAULT_CLIENT_FEATURES,
                                   types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS: published})
    return client


def run(scenario):
    asyncio.run(asyncio.wait_for(scenario(), timeout=240))


async def started(spec, cwd) -> Session:
    return await Session.start(spec, cwd)


def by_code(diagnostics) -> dict[str, types.Diagnostic]:
    return {d.code: d for d in diagnostics}


@pytest.mark.parametrize("spec", CLIENTS)
def test_diagnostics_and_code_actions_end_to_end(project, spec):
    cwd, path = project
    uri = path.as_uri()
    expected = cli_findings(path)
    assert {f["code"] for f in expected} == {"CTG101", "CTG107"}  # CTG109: ignored by config

    async def scenario():
        session = await started(spec, cwd)
        client = session.client
        try:
            await session.open(uri, MODEL)
            diagnostics = await session.diagnostics(uri)
            # the CLI's findings, positions, messages and related locations
            assert sorted((d.code, d.range.start.line + 1, d.message,
                           len(d.related_information or [])) for d in diagnostics) == \
                sorted((f["code"], f["line"], f["message"], len(f["related"]))
                       for f in expected)
            found = by_code(diagnostics)
            view = found["CTG101"]
            column = next(f["column"] for f in expected if f["code"] == "CTG101")
            line = MODEL.splitlines()[view.range.start.line]
            assert view.range.start.character == \
                sum(session.units(c) for c in line[:column - 1])  # the client's units
            assert view.severity == types.DiagnosticSeverity.Error and view.source == \
                "contiglint"
            assert view.code_description.href.endswith("ctg101_view_on_noncontiguous.py")
            assert view.related_information[0].location.uri == uri

            hover = await client.text_document_hover_async(types.HoverParams(
                text_document=types.TextDocumentIdentifier(uri=uri),
                position=view.range.start))
            assert "CTG101" in hover.contents.value and ".reshape(...)" in hover.contents.value

            # the safe fix is the preferred quick fix; applying it removes the finding
            actions = await session.actions(uri, view)
            [fix] = [a for a in actions if a.is_preferred]
            assert fix.kind == types.CodeActionKind.QuickFix and "[unsafe]" not in fix.title
            assert any(a.title.startswith("Add `# noqa: CTG101`") for a in actions)
            await session.change(uri, session.apply(uri, fix.edit))
            assert set(by_code(await session.diagnostics(uri))) == {"CTG107"}
            assert ".reshape(2, 12)" in session.text

            # the collective's fix adds statements (LibCST); it is offered as unsafe
            collective = by_code(await session.diagnostics(uri))["CTG107"]
            actions = await session.actions(uri, collective)
            [unsafe] = [a for a in actions if "[unsafe]" in a.title]
            assert not unsafe.is_preferred
            fixed = session.apply(uri, unsafe.edit)
            assert "    g_contig = g.contiguous()\n    dist.all_reduce(g_contig)\n" \
                   "    g.copy_(g_contig)\n" in fixed
            await session.change(uri, fixed)
            assert await session.diagnostics(uri) == []

            # add noqa on a fresh copy of the collective
            await session.change(uri, MODEL)
            collective = by_code(await session.diagnostics(uri))["CTG107"]
            [add] = [a for a in await session.actions(uri, collective)
                     if a.title.startswith("Add `# noqa: CTG107`")]
            await session.change(uri, session.apply(uri, add.edit))
            assert "    dist.all_reduce(g)  # noqa: CTG107\n" in session.text
            assert set(by_code(await session.diagnostics(uri))) == {"CTG101"}
        finally:
            await client.shutdown_session()
            await client.stop()

    run(scenario)


@pytest.mark.parametrize("spec", CLIENTS)
def test_fix_all_matches_the_cli(project, spec, tmp_path_factory):
    cwd, path = project
    uri = path.as_uri()
    copy = cwd / "pkg" / "copy.py"
    copy.write_text(MODEL, encoding="utf-8")
    process = contiglint("--fix", "--unsafe-fixes", "--no-cache", str(copy), cwd=cwd)
    assert process.returncode in (0, 1), process.stderr
    cli_fixed = copy.read_text(encoding="utf-8")
    assert cli_fixed != MODEL

    async def scenario():
        session = await started(spec, cwd)
        try:
            await session.open(uri, MODEL)
            await session.diagnostics(uri)
            actions = await session.actions(uri, only=["source.fixAll"])
            kinds = {a.kind: a for a in actions}
            assert set(kinds) == {"source.fixAll.contiglint", "source.fixAll.contiglint.unsafe"}
            everything = await session.resolve(kinds["source.fixAll.contiglint.unsafe"])
            assert session.apply(uri, everything.edit) == cli_fixed
            safe = await session.resolve(kinds["source.fixAll.contiglint"])
            assert ".reshape(2, 12)" in session.apply(uri, safe.edit)
            assert "g_contig" not in session.apply(uri, safe.edit)
        finally:
            await session.client.shutdown_session()
            await session.client.stop()

    run(scenario)


def test_a_buffer_that_does_not_parse_gets_one_diagnostic(project):
    cwd, path = project
    uri = path.as_uri()

    async def scenario():
        session = await started("visual-studio-code@v1.65.2", cwd)
        try:
            await session.open(uri, MODEL)
            assert len(await session.diagnostics(uri)) == 2
            broken = MODEL.replace("def sync(x):", "def sync(x:")
            await session.change(uri, broken)
            [error] = await session.diagnostics(uri)
            assert error.severity == types.DiagnosticSeverity.Error
            assert error.message.startswith("cannot parse") and error.range.start.line == 9
            await session.change(uri, MODEL)  # still alive, and back to normal
            assert len(await session.diagnostics(uri)) == 2
        finally:
            await session.client.shutdown_session()
            await session.client.stop()

    run(scenario)


def test_a_burst_of_changes_is_linted_once_for_its_last_version(project):
    cwd, path = project
    uri = path.as_uri()

    async def scenario():
        session = await started("visual-studio-code@v1.65.2", cwd)
        try:
            await session.open(uri, MODEL)
            await session.diagnostics(uri)
            for number in range(20):  # typing: faster than the debounce
                await session.change(uri, MODEL + f"# {number}\n")
            assert len(await session.diagnostics(uri)) == 2
            await asyncio.sleep(0.5)
            seen = [version for version, _ in session.client.published[uri]]
            assert seen[0] == 1 and seen[-1] == 21
            assert len(seen) <= 3  # the open, at most one stray, the last version
        finally:
            await session.client.shutdown_session()
            await session.client.stop()

    run(scenario)


KERNELS = '''import torch


def fused(x):
    assert x.is_contiguous(), "x must be contiguous"
    return x * 2
'''
CALLER = '''import torch

from kernels import fused


def forward(h):
    return fused(h.t())
'''


def test_importers_are_linted_again_when_a_module_contracts_change(tmp_path):
    """Open buffers are linted as one project: the caller gets CTG114 once the kernel module
    is open, loses it when the kernel's guard is edited away, and gets it back when the guard
    returns; a buffer that does not import the module is not linted again."""
    (tmp_path / "pyproject.toml").write_text('[tool.contiglint]\nextend-select = ["CTG114"]\n')
    kernels, caller, other = (tmp_path / "kernels.py", tmp_path / "model.py",
                              tmp_path / "other.py")
    for path, text in ((kernels, KERNELS), (caller, CALLER), (other, "import torch\n")):
        path.write_text(text)

    async def scenario():
        session = await started("visual-studio-code@v1.65.2", tmp_path)
        client = session.client

        def codes(uri):
            published = client.published.get(uri) or []
            return [[d.code for d in diagnostics] for _, diagnostics in published]

        async def until(condition):
            deadline = time.monotonic() + 60
            while not condition():
                assert time.monotonic() < deadline, client.published
                await asyncio.sleep(0.02)

        def open_(path, text):
            client.text_document_did_open(types.DidOpenTextDocumentParams(
                types.TextDocumentItem(uri=path.as_uri(), language_id="python", version=1,
                                       text=text)))

        def change(path, version, text):
            client.text_document_did_change(types.DidChangeTextDocumentParams(
                text_document=types.VersionedTextDocumentIdentifier(uri=path.as_uri(),
                                                                    version=version),
                content_changes=[types.TextDocumentContentChangeWholeDocument(text=text)]))

        try:
            open_(caller, CALLER)
            open_(other, "import torch\n")
            await until(lambda: codes(caller.as_uri()) == [[]] and codes(other.as_uri()))
            open_(kernels, KERNELS)
            await until(lambda: codes(caller.as_uri())[-1:] == [["CTG114"]])
            change(kernels, 2, KERNELS.replace('    assert x.is_contiguous(), "x must be '
                                               'contiguous"\n', ""))
            await until(lambda: codes(caller.as_uri())[-1:] == [[]] and
                        len(codes(caller.as_uri())) == 3)
            change(kernels, 3, KERNELS)
            await until(lambda: codes(caller.as_uri())[-1:] == [["CTG114"]] and
                        len(codes(caller.as_uri())) == 4)
            assert len(codes(other.as_uri())) == 1  # it imports no linted module
        finally:
            await client.shutdown_session()
            await client.stop()

    run(scenario)
