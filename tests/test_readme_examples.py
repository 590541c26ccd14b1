"""The README's examples of contiglint's output are what the command prints today.

Each block of output in README.md follows a comment `<!-- output of: contiglint ARGS -->`;
the test runs that command in the repository (on the shipped example) and compares. A block
that looks like contiglint's output but names no command fails the test, so an example cannot
be added untested.
"""
from __future__ import annotations

import re
import shlex
import subprocess
import sys
import textwrap

import pytest

from tests.clitools import ROOT, environment

README = ROOT / "README.md"
MARKER = re.compile(r"^(?P<indent>[ \t]*)<!-- output of: contiglint (?P<args>[^\n]*?) -->\n"
                    r"(?P=indent)```[a-z]*\n(?P<body>.*?)^(?P=indent)```", re.M | re.S)
FENCE = re.compile(r"^([ \t]*)```[a-z]*\n(.*?)^\1```", re.M | re.S)
# What only contiglint's own output looks like: a finding in the text or full format, a json
# finding, a GitHub annotation, the runtime report's header.
OUTPUT_LOOK = re.compile(r"^\s*(\S+\.py:\d+:\d+: [A-Z]+\d+ |(error|warning)\[CTG\d+\]: |"
                         r"\"code\": \"CTG\d+\"|::(error|warning) file=|contiglint run: \d)",
                         re.M)


SUBCOMMANDS = ("explain",)


def examples() -> list[tuple[str, str]]:
    text = README.read_text(encoding="utf-8")
    return [(match["args"], textwrap.dedent(match["body"]))
            for match in MARKER.finditer(text)]


def run(args: str) -> str:
    env = environment()
    env.pop("FORCE_COLOR", None)
    words = shlex.split(args)
    cache = [] if words[0] in SUBCOMMANDS else ["--no-cache"]  # theirs: no cache to skip
    process = subprocess.run([sys.executable, "-m", "contiglint", *cache, *words],
                             cwd=ROOT, env=env, capture_output=True,
                             text=True, encoding="utf-8", timeout=120)
    assert process.returncode in (0, 1), process.stderr
    return process.stdout


def test_the_readme_has_examples_of_every_format_it_shows():
    formats = {shlex.split(args)[shlex.split(args).index("--format") + 1]
               for args, _ in examples() if "--format" in shlex.split(args)}
    assert formats >= {"full", "text", "json"}


@pytest.mark.parametrize("args,shown", examples(), ids=[args for args, _ in examples()])
def test_readme_example_is_what_the_command_prints(args, shown):
    printed = run(args)
    assert shown == printed, (
        f"README.md's output of `contiglint {args}` differs from what it prints; "
        f"replace the block with:\n{printed}")


def test_every_block_of_contiglint_output_names_its_command():
    text = README.read_text(encoding="utf-8")
    marked = {match.start("body") for match in MARKER.finditer(text)}
    unmarked = [block.group(2)[:80] for block in FENCE.finditer(text)
                if OUTPUT_LOOK.search(block.group(2)) and block.start(2) not in marked]
    assert unmarked == [], ("blocks of contiglint output without an "
                            "`<!-- output of: contiglint ARGS -->` line above them: "
                            f"{unmarked}")
