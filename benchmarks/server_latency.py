"""How long after a keystroke does the editor show contiglint's diagnostics?

    python benchmarks/server_latency.py [--edits 30] [--lines 2000]

Starts `contiglint server` over stdio with a real LSP client (pygls), opens a generated model
file of `--lines` lines (attention, MLP, convolution and distributed blocks, some with layout
bugs), then edits it `--edits` times, each time a line inside a block, waiting for the
diagnostics of that version before the next edit. Printed: the median and 90th percentile of
the time from sending didChange to receiving its publishDiagnostics, once with the server's
default debounce and once with the debounce off (CONTIGLINT_SERVER_DEBOUNCE=0: the pure
lint-and-publish cost), the in-process `lint_source` time of the same text for reference (and
of the observed analysis the server runs, which also keeps the layouts hovers read), the time
of a code-action request on findings whose fix adds statements (made by LibCST), of a hover
over a tensor name (`out`, `qkv`, `y`, `g` in every block: its layout and the ops that made
it) and of the inlay hints of the whole file. No test asserts timings.
"""
from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

BLOCK = '''

class Attention{i}(nn.Module):
    def __init__(self, dim, heads=8):
        super().__init__()
        self.heads = heads
        self.qkv = nn.Linear(dim, dim * 3)
        self.proj = nn.Linear(dim, dim)

    def forward(self, x):
        B, N, C = x.shape
        qkv = self.qkv(x).reshape(B, N, 3, self.heads, C // self.heads)
        q, k, v = qkv.permute(2, 0, 3, 1, 4).unbind(0)
        attn = (q @ k.transpose(-2, -1)).softmax(dim=-1)
        out = (attn @ v).transpose(1, 2).view(B, N, C)
        return self.proj(out)


class Mlp{i}(nn.Module):
    def __init__(self, dim, hidden):
        super().__init__()
        self.fc1 = nn.Linear(dim, hidden)
        self.fc2 = nn.Linear(hidden, dim)

    def forward(self, x):
        return self.fc2(F.gelu(self.fc1(x)))


class Stem{i}(nn.Module):
    def __init__(self, channels):
        super().__init__()
        self.conv = nn.Conv2d(3, channels, 3, padding=1)
        self.norm = nn.BatchNorm2d(channels)

    def forward(self, x):
        y = self.norm(self.conv(x))
        return y.flatten(2).transpose(1, 2)


def sync_grads{i}(model):
    for p in model.parameters():
        if p.grad is not None:
            g = p.grad.t()
            dist.all_reduce(g)
'''
HEADER = ("import torch\nimport torch.distributed as dist\nimport torch.nn.functional as F\n"
          "from torch import nn\n")


def model_text(lines: int) -> str:
    parts, count, i = [HEADER], HEADER.count("\n"), 0
    while count < lines:
        block = BLOCK.format(i=i)
        parts.append(block)
        count += block.count("\n")
        i += 1
    return "".join(parts)


async def measure(text: str, edits: int, debounce: str | None) -> list[float]:
    from lsprotocol import types
    from pygls.lsp.client import LanguageClient

    client = LanguageClient("latency-bench", "1")
    published: dict[int, float] = {}
    last: list = []

    @client.feature(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
    def on_publish(params: types.PublishDiagnosticsParams) -> None:
        published[params.version] = time.perf_counter()
        last[:] = params.diagnostics

    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), env.get("PYTHONPATH")]))
    if debounce is not None:
        env["CONTIGLINT_SERVER_DEBOUNCE"] = debounce
    await client.start_io(sys.executable, "-m", "contiglint", "server", env=env)
    await client.initialize_async(types.InitializeParams(
        capabilities=types.ClientCapabilities(), root_uri=ROOT.as_uri(),
        initialization_options={"inlayHints": True}))
    client.initialized(types.InitializedParams())
    uri = (ROOT / "benchmarks" / "latency_model.py").as_uri()  # never written
    client.text_document_did_open(types.DidOpenTextDocumentParams(
        types.TextDocumentItem(uri=uri, language_id="python", version=1, text=text)))
    await wait_for(published, 1)
    lines = text.splitlines(keepends=True)
    targets = [n for n, line in enumerate(lines) if "attn = (q @ k" in line]
    latencies = []
    for version in range(2, edits + 2):
        line = targets[version % len(targets)]
        end = len(lines[line].rstrip("\n"))
        at = types.Position(line=line, character=end)
        edit = types.TextDocumentContentChangePartial(  # a keystroke's worth: a comment
            range=types.Range(start=at, end=at), text=f"  # {version}")
        lines[line] = lines[line][:end] + f"  # {version}\n"
        start = time.perf_counter()
        client.text_document_did_change(types.DidChangeTextDocumentParams(
            text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=version),
            content_changes=[edit]))
        latencies.append(await wait_for(published, version) - start)
    actions = []  # quick fixes that add statements (LibCST), first request per diagnostic
    for diagnostic in [d for d in last if d.code == "CTG107"][:10]:
        start = time.perf_counter()
        await client.text_document_code_action_async(types.CodeActionParams(
            text_document=types.TextDocumentIdentifier(uri=uri), range=diagnostic.range,
            context=types.CodeActionContext(diagnostics=[diagnostic])))
        actions.append(time.perf_counter() - start)
    measure.actions = actions
    document = types.TextDocumentIdentifier(uri=uri)
    hovers, shown = [], 0
    for number, line in enumerate(lines):  # every tensor name that ends a block's layout
        for name in ("out)", "qkv.permute", "y.flatten", "g)"):
            if name in line:
                at = types.Position(line=number, character=line.index(name))
                start = time.perf_counter()
                hover = await client.text_document_hover_async(types.HoverParams(
                    text_document=document, position=at))
                hovers.append(time.perf_counter() - start)
                shown += hover is not None and "contiguous:" in hover.contents.value
    start = time.perf_counter()
    hints = await client.text_document_inlay_hint_async(types.InlayHintParams(
        text_document=document, range=types.Range(
            start=types.Position(line=0, character=0),
            end=types.Position(line=len(lines), character=0))))
    measure.hints = (time.perf_counter() - start, len(hints or []))
    measure.hovers, measure.shown = hovers, shown
    await client.shutdown_async(None)
    client.exit(None)
    await client.stop()
    return latencies


async def wait_for(published: dict, version: int, timeout: float = 120.0) -> float:
    deadline = time.perf_counter() + timeout
    while version not in published:
        if time.perf_counter() > deadline:
            raise SystemExit(f"no diagnostics for version {version} within {timeout}s")
        await asyncio.sleep(0.001)
    return published[version]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--edits", type=int, default=30)
    parser.add_argument("--lines", type=int, default=2000)
    args = parser.parse_args()
    try:
        import pygls  # noqa: F401
    except ImportError:
        print("needs the server extra: pip install 'contiglint[server]'", file=sys.stderr)
        return 2
    from contiglint.engine import lint_source
    from contiglint.layout.explain.query import analyze
    from contiglint.server import DEBOUNCE_SECONDS
    from contiglint.server_layout import warm

    text = model_text(args.lines)
    runs = []
    for _ in range(5):
        start = time.perf_counter()
        result = lint_source(text, "latency_model.py")
        runs.append(time.perf_counter() - start)
    observed = []
    for _ in range(5):
        start = time.perf_counter()
        warm(analyze(text, "latency_model.py"))
        observed.append(time.perf_counter() - start)
    print(f"model: {text.count(chr(10))} lines, {len(result.findings)} findings; "
          f"lint_source in process: median {statistics.median(runs) * 1000:.0f} ms; "
          f"observed analysis (the server's, hovers' data made): median "
          f"{statistics.median(observed) * 1000:.0f} ms")
    for label, debounce in ((f"debounce {DEBOUNCE_SECONDS * 1000:.0f} ms (default)", None),
                            ("debounce off", "0")):
        latencies = asyncio.run(measure(text, args.edits, debounce))
        ms = sorted(x * 1000 for x in latencies)
        p90 = ms[min(len(ms) - 1, int(round(0.9 * (len(ms) - 1))))]
        print(f"didChange -> publishDiagnostics, {label}: median {statistics.median(ms):.0f} ms, "
              f"p90 {p90:.0f} ms, over {len(ms)} edits")
    actions = sorted(x * 1000 for x in measure.actions)
    print(f"codeAction on a CTG107 finding (its fix adds statements, made by LibCST): median "
          f"{statistics.median(actions):.0f} ms, max {actions[-1]:.0f} ms, over {len(actions)}")
    hovers = sorted(x * 1000 for x in measure.hovers)
    print(f"hover on a tensor name (layout and the ops that made it): median "
          f"{statistics.median(hovers):.1f} ms, max {hovers[-1]:.1f} ms, over {len(hovers)} "
          f"({measure.shown} showed a layout)")
    seconds, count = measure.hints
    print(f"inlay hints of the whole file: {seconds * 1000:.0f} ms for {count} hints")
    return 0


if __name__ == "__main__":
    sys.exit(main())
