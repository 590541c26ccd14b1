"""Inputs and the oracle for the robustness fuzz tests: seed programs, mutators, invariants.

The seeds are the fixtures plus a few realistic model snippets embedded here (so the tests never
depend on a corpus outside the repository). Mutators change real code the way editing does:
lines deleted, duplicated, swapped or re-indented, names and layout ops swapped, numbers
changed, text cut off. `problems()` is the oracle: linting never fails internally, and every fix
parses, removes what it fixed and is stable under a second fix.
"""
from __future__ import annotations

import io
import os
import random
import re
import tokenize
from typing import Callable

from contiglint.engine import fix_source, lint_source, parse
from contiglint.rules import all_rules
from contiglint.settings import Settings
from tests.fixture_format import fixture_files

# Every rule, opt-in ones included, in both modes: strict reaches the most code.
ALL_RULES = Settings(select=tuple(rule.code for rule in all_rules()))
STRICT = Settings(select=ALL_RULES.select, strict=True)


def examples(default: int) -> int:
    """How many inputs a fuzz test runs: `default` in CI, CONTIGLINT_FUZZ_EXAMPLES for a long run
    (the number is multiplied by default/100, so each test keeps its relative share)."""
    value = os.environ.get("CONTIGLINT_FUZZ_EXAMPLES")
    return max(1, int(value) * default // 100) if value else default


REALISTIC_PROGRAMS = {
    "attention": '''\
import torch
import torch.nn as nn
import torch.nn.functional as F


class Attention(nn.Module):
    def __init__(self, dim, heads=8):
        super().__init__()
        self.heads = heads
        self.qkv = nn.Linear(dim, dim * 3)
        self.proj = nn.Linear(dim, dim)

    def forward(self, x, mask=None):
        B, N, C = x.shape
        qkv = self.qkv(x).reshape(B, N, 3, self.heads, C // self.heads).permute(2, 0, 3, 1, 4)
        q, k, v = qkv[0], qkv[1], qkv[2]
        attn = (q @ k.transpose(-2, -1)) * (C // self.heads) ** -0.5
        if mask is not None:
            attn = attn.masked_fill(mask, float("-inf"))
        attn = attn.softmax(dim=-1)
        out = (attn @ v).transpose(1, 2).view(B, N, C)
        return self.proj(out)
''',
    "windows": '''\
import torch


def window_partition(x, window_size: int):
    B, H, W, C = x.shape
    x = x.view(B, H // window_size, window_size, W // window_size, window_size, C)
    windows = x.permute(0, 1, 3, 2, 4, 5).view(-1, window_size, window_size, C)
    return windows


def window_reverse(windows, window_size, H, W):
    B = int(windows.shape[0] / (H * W / window_size / window_size))
    x = windows.view(B, H // window_size, W // window_size, window_size, window_size, -1)
    x = x.permute(0, 1, 3, 2, 4, 5).contiguous().view(B, H, W, -1)
    return x


def roll(x, shift):
    shifted = torch.roll(x, shifts=(-shift, -shift), dims=(1, 2))
    for i in range(3):
        shifted = shifted[:, ::2].expand(4, -1, -1, -1)
        shifted.add_(1)
    return shifted.data_ptr()
''',
    "conv": '''\
import torch
from torch import nn


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 8, 3)
        self.register_buffer("grid", torch.arange(16).view(4, 4).t())
        self.weight = nn.Parameter(torch.randn(8, 4).transpose(0, 1))

    def forward(self, images):
        x = images.to(memory_format=torch.channels_last)
        y = self.conv(x)
        flat = y.flatten(2).transpose(1, 2)
        z = flat.view(flat.size(0), -1)
        return z.cuda(), y.numpy().ctypes.data


def export(model):
    example = torch.randn(1, 3, 8, 8).permute(0, 1, 3, 2)
    traced = torch.jit.trace(model, example)
    torch.save(example[:, :, ::2], "x.pt")
    return traced
''',
    "distributed": '''\
import torch
import torch.distributed as dist


def sync(grads, world):
    flat = torch.cat([g.view(-1) for g in grads])
    chunk = flat.view(world, -1).t()
    dist.all_reduce(chunk)
    buffers = []
    for g in grads:
        part = g.narrow(0, 0, 1)
        dist.broadcast(part, src=0)
        buffers.append(part)
    total = torch.zeros(4).expand(3, 4)
    total += torch.ones(3, 4)
    total[0] = 1
    return buffers
''',
    "kernel": '''\
import torch
import triton
import triton.language as tl


@triton.jit
def add_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(y_ptr + offsets, tl.load(x_ptr + offsets) + 1, mask=offsets < n)


def launch(x):
    y = torch.empty_like(x)
    xt = x.t()
    grid = lambda meta: (triton.cdiv(x.numel(), meta["BLOCK"]),)
    add_kernel[grid](xt, y, x.numel(), BLOCK=128)
    while not y.is_contiguous():
        y = y.contiguous()
    return y
''',
}


def seed_programs() -> dict[str, str]:
    """Name -> source of every seed: the realistic programs and every fixture (and golden)."""
    seeds = dict(REALISTIC_PROGRAMS)
    for path in fixture_files():
        seeds[f"{path.parent.name}/{path.name}"] = path.read_text(encoding="utf-8")
    return seeds


# --- mutators -------------------------------------------------------------------------------
LAYOUT_OPS = ("view", "reshape", "transpose", "permute", "contiguous", "expand", "t", "flatten",
              "narrow", "unfold", "data_ptr", "add_", "to", "cuda", "clone", "unsqueeze",
              "squeeze", "chunk", "split", "mT", "T", "as_strided", "is_contiguous", "stride",
              "numpy", "storage", "copy_", "expand_as", "view_as", "movedim", "unbind")
NUMBERS = ("0", "1", "-1", "2", "-2", "3", "7", "100", "10**9", "-(1)", "0.5", "None", "True",
           "x", "(1, 2)", "[0, -1]", "...", "()")
SNIPPETS = ("x = x.transpose(0, 1)", "y = x.view(-1)", "x = x[:, ::2]", "x.add_(1)",
            "return x", "yield x", "x = x.expand(4, -1)", "self.a = x.t()", "del x",
            "for x in x: pass", "if x.is_contiguous(): x = x.t()", "x, y = y.t(), x",
            "x = torch.randn(2, 3).permute(1, 0)", "global x", "x[0] = x.t()",
            "lambda: x.view(1)", "x = [x.t() for x in x]", "async def f(): await x",
            "with x as y: y.view(2)", "try:\n    x = x.t()\nexcept E:\n    pass",
            "x = (yield)", "x := 1", "class C: pass", "x.data_ptr()", "x @ x.mT",
            "def f(x=x.t()): return x.view(1)", "while x: x = x.t()", "x = f(x)",
            "x = self.f(x)", "raise x.view(1)", "assert x.view(1)", "x: int = x.t()",
            "x = -x.t()", "x **= x.view(2)", "x = *x, x", "x = x[None, ..., 1:2:3]")


def _lines(text: str) -> list[str]:
    return text.splitlines(keepends=True) or [""]


def delete_line(text: str, rng: random.Random) -> str:
    lines = _lines(text)
    del lines[rng.randrange(len(lines))]
    return "".join(lines)


def duplicate_line(text: str, rng: random.Random) -> str:
    lines = _lines(text)
    i = rng.randrange(len(lines))
    lines.insert(rng.randrange(len(lines) + 1), lines[i])
    return "".join(lines)


def swap_lines(text: str, rng: random.Random) -> str:
    lines = _lines(text)
    i, j = rng.randrange(len(lines)), rng.randrange(len(lines))
    lines[i], lines[j] = lines[j], lines[i]
    return "".join(lines)


def reindent(text: str, rng: random.Random) -> str:
    lines = _lines(text)
    i = rng.randrange(len(lines))
    lines[i] = rng.choice(("", "    ", "\t", "        ")) + lines[i].lstrip(" \t")
    return "".join(lines)


def insert_snippet(text: str, rng: random.Random) -> str:
    lines = _lines(text)
    i = rng.randrange(len(lines))
    indent = re.match(r"[ \t]*", lines[i]).group()
    snippet = "".join(indent + line + "\n" for line in rng.choice(SNIPPETS).split("\n"))
    lines.insert(i, snippet)
    return "".join(lines)


def truncate(text: str, rng: random.Random) -> str:
    return text[:rng.randrange(len(text) + 1)]


def _tokens(text: str) -> list[tokenize.TokenInfo]:
    try:
        return list(tokenize.generate_tokens(io.StringIO(text).readline))
    except (tokenize.TokenError, SyntaxError, IndentationError):
        return []


def _replace_token(text: str, token: tokenize.TokenInfo, content: str) -> str:
    lines = _lines(text)
    (row, col), (end_row, end_col) = token.start, token.end
    if row != end_row:
        return text
    line = lines[row - 1]
    lines[row - 1] = line[:col] + content + line[end_col:]
    return "".join(lines)


def swap_name(text: str, rng: random.Random) -> str:
    """Replace one name with another name of the file or a layout op (keeps it parseable more
    often than random bytes, so the analysis, not the parser, is exercised)."""
    names = [t for t in _tokens(text) if t.type == tokenize.NAME]
    if not names:
        return insert_snippet(text, rng)
    pool = [t.string for t in names] + list(LAYOUT_OPS)
    return _replace_token(text, rng.choice(names), rng.choice(pool))


def change_number(text: str, rng: random.Random) -> str:
    numbers = [t for t in _tokens(text) if t.type == tokenize.NUMBER]
    if not numbers:
        return swap_name(text, rng)
    return _replace_token(text, rng.choice(numbers), rng.choice(NUMBERS))


def drop_token(text: str, rng: random.Random) -> str:
    tokens = [t for t in _tokens(text) if t.type in (tokenize.OP, tokenize.NAME)]
    if not tokens:
        return truncate(text, rng)
    return _replace_token(text, rng.choice(tokens), "")


MUTATORS: tuple[Callable[[str, random.Random], str], ...] = (
    delete_line, duplicate_line, swap_lines, reindent, insert_snippet, truncate, swap_name,
    swap_name, change_number, drop_token)


def mutate(text: str, rng: random.Random, rounds: int = 0) -> str:
    """One to four edits of `text` (or `rounds` if given), chosen by `rng`."""
    for _ in range(rounds or rng.randint(1, 4)):
        text = rng.choice(MUTATORS)(text, rng)
    return text


# --- the oracle -----------------------------------------------------------------------------
# Rules whose fixes are known to undo another rule's fix, so fixing never settles. A stability
# failure that disappears without the rule is that known conflict, not a new bug; the
# test_robust_fuzz test pinning each conflict (strict xfail) says when to remove the entry.
# (CTG110 used to rewrite CTG106's `k_contig = k.contiguous()` for raw memory of a
# channels_last tensor into a channels_last copy, which CTG106 flagged again; CTG110 now leaves
# a copy alone when its bound result is read as raw memory. test_robust_fuzz pins that.)
KNOWN_CONFLICTS: tuple[str, ...] = ()


def problems(text: str, path: str = "fuzz.py") -> list[str]:
    """Every broken robustness promise for one input (empty when all hold).

    Linting must not raise or report an internal error (E900) in either mode. When the fixer
    (safe and unsafe fixes) changes the text: the result parses, no fixable finding is left,
    and fixing it again changes nothing. An unparsable input must give exactly one E999.
    """
    found = []
    for settings in (ALL_RULES, STRICT):
        try:
            result = lint_source(text, path, settings)
        except Exception as error:  # noqa: BLE001 - the point is to catch everything
            return [f"lint raised {type(error).__name__}: {error}"]
        internal = [e.message for e in result.errors if e.kind != "syntax"]
        if internal:
            return [f"internal error (strict={settings.strict}): {internal[0]}"]
        _, syntax = parse(text, path)
        if syntax is not None and [e.kind for e in result.errors] != ["syntax"]:
            found.append(f"unparsable input gave {result.errors} instead of one E999")
        if syntax is not None:
            return found
        try:
            fixed = fix_source(text, path, settings, unsafe=True)
        except Exception as error:  # noqa: BLE001
            return [f"fix raised {type(error).__name__}: {error}"]
        if fixed.result.errors:
            return [f"fix reported {fixed.result.errors[0].message}"]
        if fixed.text == text:
            continue
        _, error = parse(fixed.text, path)
        if error is not None:
            return [f"fixed text does not parse: {error.message}"]
        unstable = unsettled(text, fixed.text, path, settings)
        if unstable and not unsettled(text, None, path, without_conflicts(settings)):
            continue  # a known conflict between two rules' fixes (KNOWN_CONFLICTS)
        found.extend(unstable)
    return found


def unsettled(text: str, fixed, path: str, settings: Settings) -> list[str]:
    """Why fixing `text` (already fixed to `fixed`, if given) does not settle."""
    if fixed is None:
        fixed = fix_source(text, path, settings, unsafe=True).text
    found = []
    left = [f for f in lint_source(fixed, path, settings).findings if f.fix]
    if left:
        found.append(f"fixable finding left after fixing: {left[0].code} line {left[0].line}")
    if fix_source(fixed, path, settings, unsafe=True).text != fixed:
        found.append("fixing twice changed the text again")
    return found


def without_conflicts(settings: Settings) -> Settings:
    return Settings(select=tuple(c for c in settings.select if c not in KNOWN_CONFLICTS),
                    strict=settings.strict)
