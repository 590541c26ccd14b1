"""The rules' looks at a text before it is parsed (`Rule.may_fire_text`) must say True
wherever their looks at the syntax (`Rule.may_fire`) do: a text they clear is not parsed for
the rule. Checked on every module of the repository and on the spellings Python allows, and
shown to clear what they are there to clear."""
from __future__ import annotations

import ast

import pytest

from contiglint import engine
from contiglint.layout.syntax.index import ModuleIndex
from contiglint.layout.syntax.text import Text, called_names
from contiglint.layout.syntax.text_spines import (
    may_call_collective, may_write_arguments, may_write_into_copy,
)
from contiglint.prefilter import as_python_reads, holds_tokens
from contiglint.rules import all_rules
from contiglint.settings import Settings
from tests.test_flow_shortcuts import _sources

# What a copy-if-needed call's spine may end in, spelled the ways Python allows. Each is a
# whole module; the parsed look (`ModuleIndex.may_write_into_copy`) decides each.
SPINES = [
    "y = x.contiguous()\n",
    "y = x.contiguous().view(2)\n",
    "x.contiguous()[0] = 1\n",
    "x.contiguous()[0] += 1\n",
    "x.contiguous().add_(1)\n",
    "x.reshape(-1).view(2, 3).mul_(2)\n",
    "x.to(d)[0].zero_()\n",
    "x.float()\\\n    .add_(1)\n",
    "f(x.reshape(-1)\n  # a comment\n  .sub_(1))\n",
    "f(x.  # a comment\n  contiguous()[0:2].fill_(0))\n",
    "(x.contiguous\n)()[1:2] = 0\n",
    "a, x.contiguous()[0] = 1, 2\n",
    "x.contiguous()[0], a = 1, 2\n",
    "[x.contiguous()[0], a] = 1, 2\n",
    "(x.contiguous()[0]) = 1\n",
    "(x.contiguous().t) = 1\n",
    "x.contiguous().t += 1\n",
    "(x.contiguous().t) += 1\n",
    "for x.reshape(-1)[0] in range(3):\n    pass\n",
    "del x.contiguous()[0]\n",
    "y = x.contiguous()[0] == 1\n",
    "y = x.contiguous()[0] + 1\n",
    "y = x.contiguous()[x.reshape(-1)[0]:]\n",
    "y = {x.reshape(-1)[0]: 1}\n",
    "f(x.contiguous())\n",
    "f(x.contiguous(), 1)\n",
    "f(out=x.contiguous())\n",
    "f(x, out=x.to(d))\n",
    "f(x.contiguous()[0])\n",
    "y = [x.contiguous(), 1]\n",
    "y = x.contiguous() if c else x\n",
    "y = x.contiguous('a)(]')[0]\n",
    "y = x.contiguous(\"\"\"a\n)\"\"\")[0] = 1\n",
    "y = x.contiguous(  # )\n)[0] = 1\n",
    "y = x.contiguous(f'{a[0]}')[0] = 1\n",
    "s = 'x.contiguous()[0] = 1'\n",
    "y = x.contiguous(\n" + "    a,\n" * 2000 + ")[0] = 1\n",
    "y = x.contiguous" + " " * 300 + "()[0] = 1\n",
]
# ... and what makes an argument a written one
ARGUMENTS = [
    "import torch\n",
    "import torch\ntorch.relu_(y)\n",
    "from torch import relu_\nrelu_(y)\n",
    "import torch as T\nT.relu_(y)\n",
    "import torch as T\nlib = T\n",
    "import torch\nlib = torch\n",
    "import torch\nf(torch)\n",
    "import torch\nimport torch.functional as F\n",
    "from torch import functional\nfunctional.relu_(y)\n",
    "import torch\nfrom torch import (\n    nn,\n    torch_thing,\n)\n",
    "import torch.nn as nn\nm = nn.ReLU(inplace=True)\n",
    "import torch.distributed as dist\ndist.all_reduce(y)\n",
    "from torch.distributed import all_reduce\nall_reduce(y)\n",
    "import torch\ny = torch.add(a, b)\n",
    "import torch\n# torch is what this uses\n",
]


def _parsed(text: str) -> ModuleIndex:
    return ModuleIndex(ast.parse(text))


@pytest.mark.parametrize("text", SPINES)
def test_a_write_into_a_copy_is_never_ruled_out_by_the_text(text):
    for arguments in ARGUMENTS:
        module = arguments + "x = torch.ones(2)\n" + text
        parsed = _parsed(module).may_write_into_copy
        assert not parsed or may_write_into_copy(Text(module)), module


@pytest.mark.parametrize("text", ARGUMENTS)
def test_a_written_argument_is_never_ruled_out_by_the_text(text):
    index = _parsed(text)
    assert not index.may_write_arguments or may_write_arguments(Text(text)), text
    assert not index.may_call_collective or may_call_collective(Text(text)), text


def test_the_text_clears_copies_that_are_not_written():
    """The look is not a constant: assigned, compared, listed or passed copies are cleared
    where no call may write an argument (a subscript passed on may be a target's part, as
    in `a, x.contiguous()[0] = ...`: kept)."""
    cleared = [text for text in SPINES if not may_write_into_copy(Text(text))]
    assert cleared == [
        "y = x.contiguous()\n", "y = x.contiguous().view(2)\n",
        "y = x.contiguous()[0] == 1\n", "y = x.contiguous()[0] + 1\n",
        "f(x.contiguous())\n", "f(x.contiguous(), 1)\n",
        "y = [x.contiguous(), 1]\n", "y = x.contiguous() if c else x\n",
        "y = x.contiguous('a)(]')[0]\n"]
    assert not may_write_arguments(Text("import torch\ny = torch.add(a, b)\n"))
    assert may_write_arguments(Text("import torch\n# torch is what this uses\n"))


def test_called_names_finds_each_spelling_of_an_attribute():
    text = "a.to(1)\nb . to(2)\nc.\\\n  to(3)\nf(d.  # c\n  to(4))\nto(5)\nx = 'to'\n"
    ends = sorted(called_names(text, frozenset({"to"})))
    assert [text[end:end + 3] for end in ends] == ["(1)", "(2)", "(3)", "(4)"]


def test_every_rules_text_look_keeps_what_its_syntax_look_keeps():
    """Every rule, default and strict mode, every module of the repository (its fixtures,
    examples and evaluation cases) whose text holds the rule's tokens."""
    rules = [rule() for rule in all_rules()]
    codes = tuple(rule.code for rule in rules)
    kept = cleared = 0
    for strict in (False, True):
        settings = Settings(select=codes, strict=strict)
        for path, text, tree in _sources():
            searched = as_python_reads(text)
            index = ModuleIndex(tree)
            code = Text(searched)
            for rule in rules:
                if not holds_tokens(rule, searched):
                    continue
                by_text = rule.may_fire_text(code, settings)
                if rule.may_fire(index, settings):
                    kept += 1
                    assert by_text, (rule.code, strict, path)
                cleared += not by_text
    assert kept > 1000 and cleared > 100


def test_a_text_every_rule_rules_out_is_not_parsed(monkeypatch):
    """`.to(` is CTG104's and CTG111's token: a module that moves a tensor and reads it
    nowhere in row-major order, and writes into no copy, is not parsed for them; a syntax
    error is still reported, and a write into the copy makes it analysed. (CTG114, whose
    token `import` every module holds, is left out: a file linted alone learns its own
    contracts while it is analysed.)"""
    parsed = []
    real = engine.parse
    monkeypatch.setattr(engine, "parse", lambda text, path: parsed.append(path) or
                        real(text, path))
    settings = Settings(select=("CTG101", "CTG104", "CTG111"))
    quiet = "import torch\n\n\ndef f(x):\n    y = x.to('cuda')\n    return y * 2\n"
    assert engine.lint_source(quiet, "quiet.py", settings).findings == []
    assert parsed == []
    assert engine.lint_source(quiet + "def g(:\n", "bad.py", settings).errors
    parsed.clear()  # (a syntax error is reported as the parser words it)
    written = quiet.replace("y * 2", "x.to('cuda').add_(1)")
    engine.lint_source(written, "written.py", settings)
    assert parsed == ["written.py"]


def test_nested_copies_past_the_budget_keep_the_text():
    """Copy calls nested in each other's brackets (`f(a.to(a.to(...)))`) have each inner call
    read again for every outer one: past a budget of characters proportional to the text's
    length the look keeps the text (it is parsed and asked again), so its cost stays linear.
    A shallow nest is read through and cleared."""
    for depth, kept in ((5, False), (150, True)):
        text = "f(" + "a.to(" * depth + "1" + ")" * (depth + 1) + "\n"
        assert not _parsed(text).may_write_into_copy
        assert may_write_into_copy(Text(text)) is kept, depth
