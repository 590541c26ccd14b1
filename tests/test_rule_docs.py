"""Every rule documents itself, and the example in its documentation is really flagged.

A rule's docstring is what `contiglint rule CODE` prints. Its **Example.** block is linted here:
the line ending in `# CODE` must be reported with that code, and no other line of the example.
"""
from __future__ import annotations

import re
import textwrap

import pytest

from contiglint.engine import lint_source
from contiglint.rules import all_rules
from contiglint.settings import Settings

RULES = all_rules()
SECTIONS = ("**What it flags.**", "**Why.**", "**Example.**", "**Fix.**", "**When to ignore.**")


def example_of(rule) -> str:
    doc = rule.documentation()
    match = re.search(r"\*\*Example\.\*\*\n(?P<body>(?:\n|    .*\n)+)", doc + "\n")
    assert match, f"{rule.code}: no indented code block after **Example.**"
    return textwrap.dedent(match.group("body")).strip("\n") + "\n"


@pytest.mark.parametrize("rule", RULES, ids=[r.code for r in RULES])
def test_documentation_has_every_section(rule):
    doc = rule.documentation()
    missing = [section for section in SECTIONS if section not in doc]
    assert not missing, f"{rule.code} docstring lacks {missing}"
    assert rule.summary and "\n" not in rule.summary


@pytest.mark.parametrize("rule", RULES, ids=[r.code for r in RULES])
def test_documented_example_is_flagged(rule):
    example = example_of(rule)
    program = "import torch\nimport torch.nn as nn\nimport torch.nn.functional as F\n" + example
    flagged = {number for number, line in enumerate(program.splitlines(), 1)
               if re.search(rf"#.*\b{rule.code}\b", line)}
    assert flagged, f"{rule.code}: the example marks no line with `# {rule.code}`"
    settings = Settings(select=(rule.code,), strict=False)
    found = {f.line for f in lint_source(program, "example.py", settings).findings}
    assert found == flagged, f"{rule.code}: example flagged {sorted(found)}, marked {sorted(flagged)}"
