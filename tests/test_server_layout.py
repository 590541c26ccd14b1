"""The server's layout features end to end (pytest-lsp, a real client over stdio): hovering a
tensor name shows its inferred layout; inlay hints after contiguity-breaking ops, off by
default and on with the `inlayHints` initialization option; bad options are named."""
from __future__ import annotations

import asyncio
import contextlib
import sys

import pytest

from tests.clitools import environment

pytest_lsp = pytest.importorskip("pytest_lsp")
from lsprotocol import types  # noqa: E402

from tests.test_server import make_client  # noqa: E402

MODEL = '''import torch


def attend(x):
    B, N, H, D = x.shape
    x = x.reshape(B, N, H, D).contiguous()
    q = x.transpose(1, 2)
    return q.view(B, H, N * D)
'''


@contextlib.asynccontextmanager
async def session(tmp_path, spec: str, options=None):
    """A server started by a client with `spec`'s capabilities and `options`, the model open;
    shut down at the end."""
    config = pytest_lsp.ClientServerConfig(
        server_command=[sys.executable, "-m", "contiglint", "server"],
        server_env=environment(), client_factory=make_client)
    client = await config.start()
    await client.initialize_session(types.InitializeParams(
        capabilities=pytest_lsp.client_capabilities(spec), root_uri=tmp_path.as_uri(),
        initialization_options=options))
    path = tmp_path / "model.py"
    path.write_text(MODEL, encoding="utf-8")
    client.text_document_did_open(types.DidOpenTextDocumentParams(types.TextDocumentItem(
        uri=path.as_uri(), language_id="python", version=1, text=MODEL)))
    try:
        yield client, path.as_uri()
    finally:
        await client.shutdown_session()
        await client.stop()


def run(scenario):
    asyncio.run(asyncio.wait_for(scenario(), timeout=240))


async def hover(client, uri, line, character):
    return await client.text_document_hover_async(types.HoverParams(
        text_document=types.TextDocumentIdentifier(uri=uri),
        position=types.Position(line=line, character=character)))


async def hints(client, uri):
    return await client.text_document_inlay_hint_async(types.InlayHintParams(
        text_document=types.TextDocumentIdentifier(uri=uri),
        range=types.Range(start=types.Position(line=0, character=0),
                          end=types.Position(line=8, character=0))))


@pytest.mark.parametrize("spec", ["neovim@v0.10.0", "emacs@v29.1"])
def test_hover_shows_the_inferred_layout(tmp_path, spec):
    async def scenario():
        async with session(tmp_path, spec) as (client, uri):
            # `q` in `return q.view(...)`: line 8, character 11
            shown = await hover(client, uri, 7, 11)
            body = shown.contents.value
            assert "shape: (B, H, N, D)" in body
            assert "strides: (D*H*N, D, D*H, 1)" in body
            assert "contiguous: no: its dims are out of memory order (H↔N) since " \
                   "`.transpose(1, 2)` on line 7" in body
            assert "line 6: `.contiguous()` → (B, N, H, D) contiguous" in body
            assert (shown.range.start.line, shown.range.start.character,
                    shown.range.end.character) == (7, 11, 12)
            # `x` on line 7, after `.contiguous()`
            contiguous = (await hover(client, uri, 6, 8)).contents.value
            assert "shape: (B, N, H, D)" in contiguous and "contiguous: yes" in contiguous
            # the parameter: the engine does not know it is a tensor, so it shows nothing
            assert await hover(client, uri, 3, 11) is None
            # `B` is a size, not a tensor; `torch` neither
            assert await hover(client, uri, 4, 4) is None
            assert await hover(client, uri, 0, 8) is None
            # inlay hints are off unless asked for
            assert list(await hints(client, uri)) == []

    run(scenario)


def test_inlay_hint_after_the_transpose(tmp_path):
    async def scenario():
        async with session(tmp_path, "visual-studio-code@v1.65.2",
                           {"inlayHints": True}) as (client, uri):
            [hint] = await hints(client, uri)
            assert hint.label == "⟨non-contiguous: H↔N⟩"
            # right after `x.transpose(1, 2)` on line 7
            assert (hint.position.line, hint.position.character) == (6, 25)
            assert client.messages == []

    run(scenario)


def test_bad_initialization_options_are_named(tmp_path):
    async def scenario():
        async with session(tmp_path, "neovim@v0.10.0",
                           {"inlayHint": True, "inlayHints": "yes"}) as (client, uri):
            assert list(await hints(client, uri)) == []  # left off: "yes" is not a boolean
            messages = [m.message for m in client.messages]
            assert any("unknown initialization option 'inlayHint'" in m for m in messages)
            assert any("'inlayHints' must be bool, not 'yes'" in m for m in messages)

    run(scenario)


def test_hints_name_what_each_op_broke():
    """One hint per op that breaks contiguity (a slice, `.T`, expand, a torch function, a
    permute later made contiguous), none after the ops that keep or restore it; torch agrees
    that each hinted result is non-contiguous."""
    torch = pytest.importorskip("torch")
    from contiglint.layout.explain.query import analyze
    from contiglint.server_layout import inlay_hints

    text = ("import torch\n\nx = torch.randn(4, 6)\na = x[:, 1:]\nb = x.T\n"
            "c = torch.randn(4, 1).expand(4, 6)\nd = torch.transpose(x, 0, 1)\n"
            "e = x.permute(1, 0).contiguous()\n")
    assert inlay_hints(analyze(text, "m.py"), 1, 9) == [
        (4, 13, "⟨non-contiguous: not dense⟩"), (5, 8, "⟨non-contiguous: dim 0↔dim 1⟩"),
        (6, 35, "⟨non-contiguous: overlapping⟩"), (7, 29, "⟨non-contiguous: dim 0↔dim 1⟩"),
        (8, 20, "⟨non-contiguous: dim 0↔dim 1⟩")]
    names: dict = {"torch": torch}
    exec(compile(text, "m.py", "exec"), names)
    assert [names[n].is_contiguous() for n in "abcde"] == [False] * 4 + [True]
    assert not names["x"].permute(1, 0).is_contiguous()
