"""The classic contiguity bugs, in their plainest forms: each one fails under torch, and a plain
`contiglint FILE` and `flake8 --select CTG` report it with a witness where its rule runs by
default. A rule that the precision policy keeps in preview (contiglint/rules/precision.py) does
not run there: the plain run names it among the preview rules it did not run, and `--preview`
reports the bug. What runs by default is read from the registry, never written here."""
from __future__ import annotations

import json
import subprocess
import sys

import pytest

from contiglint.layout.model.witness import Witness
from contiglint.rules import registry, rule_by_code
from contiglint.verify.witnesses import replay
from tests.clitools import contiglint, environment, write
from tests.test_flake8_plugin import FORMAT, flake8_config

torch = pytest.importorskip("torch")

# (name, rules (comma-separated), line of the findings, program); running the program raises
# under torch
CLASSIC = [
    ("merge-heads-after-transpose", "CTG101", 6, """import torch


def merge_heads(x):
    B, H, N, D = x.shape
    return x.transpose(1, 2).view(B, N, H * D)


merge_heads(torch.randn(2, 4, 8, 16))
"""),
    ("view-after-permute", "CTG101", 5, """import torch

B, N, C = 2, 3, 4
x = torch.randn(B, C, N)
y = x.permute(0, 2, 1).view(B, N * C)
"""),
    ("attention-output", "CTG101", 10, """import torch


class Attention(torch.nn.Module):
    def forward(self, x):
        B, N, C = x.shape
        q = x.view(B, N, 4, C // 4).transpose(1, 2)
        out = torch.softmax(q @ q.transpose(-2, -1), dim=-1) @ q
        # the heads are merged back without a copy
        return out.transpose(1, 2).view(B, N, C)


Attention()(torch.randn(2, 16, 64))
"""),
    ("view-after-narrow", "CTG101", 4, """import torch

x = torch.randn(4, 10)
y = x.narrow(1, 2, 5).view(20)
"""),
    ("view-after-slice", "CTG101", 4, """import torch

x = torch.randn(4, 10)
y = x[:, 2:7].view(-1)
"""),
    ("parameter-of-transpose", "CTG103", 8, """import torch
from torch import nn


class Projection(nn.Module):
    def __init__(self, weight):
        super().__init__()
        self.weight = nn.Parameter(weight.transpose(0, 1))


model = Projection(torch.randn(3, 5))
nn.utils.parameters_to_vector(model.parameters())
"""),
    ("inplace-on-expand", "CTG108", 4, """import torch

bias = torch.zeros(1, 8).expand(4, 8)
bias.add_(1)
"""),
    # `.to("cuda")` makes the same copy; `copy=True` makes it on a CPU-only machine too
    ("view-after-device-copy", "CTG101,CTG104", 4, """import torch

x = torch.randn(4, 6).t().to("cpu", copy=True)
y = x.view(24)
"""),
]
IDS = [name for name, *_ in CLASSIC]


def findings(tmp_path, *flags: str) -> tuple[list[dict], str]:
    process = contiglint("--no-cache", "--format", "json", *flags, "bug.py", cwd=tmp_path,
                         defaults=True)
    assert process.returncode in (0, 1), process.stderr
    return json.loads(process.stdout), process.stderr


@pytest.mark.parametrize("name, code, line, program", CLASSIC, ids=IDS)
def test_the_program_fails_under_torch(name, code, line, program):
    with pytest.raises(RuntimeError):
        exec(compile(program, name, "exec"), {"__name__": "__main__"})


@pytest.mark.parametrize("name, code, line, program", CLASSIC, ids=IDS)
def test_a_plain_run_reports_it_with_a_witness_or_names_its_preview_rule(tmp_path, name, code,
                                                                         line, program):
    write(tmp_path, "bug.py", program)
    codes = code.split(",")
    hidden = [c for c in codes if registry.is_preview(rule_by_code(c))]
    found, stderr = findings(tmp_path)
    assert sorted((f["code"], f["line"]) for f in found) == \
        [(c, line) for c in codes if c not in hidden]
    for preview in hidden:
        assert preview in stderr.split("not run")[1], stderr
    if hidden:
        found, _ = findings(tmp_path, "--preview")
    assert sorted((f["code"], f["line"]) for f in found) == [(c, line) for c in codes]
    for finding in found:  # each witness is a tensor on which torch fails as it says
        assert replay(Witness.from_json(finding["witness"])) is None, finding


def _shown(code: str) -> list[str]:
    return [c for c in code.split(",") if not registry.is_preview(rule_by_code(c))]


SHOWN = [case for case in CLASSIC if _shown(case[1])]


@pytest.mark.parametrize("name, code, line, program", SHOWN, ids=[case[0] for case in SHOWN])
def test_flake8_reports_what_runs_by_default(tmp_path, name, code, line, program):
    write(tmp_path, "bug.py", program)
    process = subprocess.run(
        [sys.executable, "-m", "flake8", "--config", str(flake8_config(tmp_path)), "--select",
         "CTG", "--format", FORMAT, "bug.py"], cwd=tmp_path, capture_output=True, text=True,
        env=environment(), timeout=300)
    assert process.returncode == 1, process.stderr
    assert sorted(row.split("|")[::3] for row in process.stdout.splitlines()) == \
        [["bug.py", c] for c in _shown(code)]
    assert {int(row.split("|")[1]) for row in process.stdout.splitlines()} == {line}
