"""`contiglint run --explain`: each site shows what static analysis inferred next to what torch
made; agreement is said, a refuted claim is a model error."""
from __future__ import annotations

import json
import subprocess
import sys

import pytest

from contiglint.layout.explain.describe import describe
from contiglint.layout.explain.query import analyze
from contiglint.layout.model.geometry import Geometry
from contiglint.layout.model.values import UNKNOWN_TENSOR, Tensor
from contiglint.runtime.static_compare import StaticView, disagreements, static_layout
from tests.clitools import environment

torch = pytest.importorskip("torch")

SCRIPT = '''import torch


def heads(x):
    B, N, C = x.shape
    q = x.reshape(B, N, 4, C // 4).transpose(1, 2)
    return q.reshape(B, 4, N * (C // 4))


heads(torch.randn(2, 3, 8))
'''


def test_run_explain_puts_the_static_layout_next_to_torchs(tmp_path):
    script = tmp_path / "script.py"
    script.write_text(SCRIPT)
    process = subprocess.run([sys.executable, "-m", "contiglint", "run", "--explain", str(script)],
                             cwd=tmp_path, env=environment(), capture_output=True, text=True,
                             timeout=300)
    assert process.returncode == 0, process.stderr
    report = process.stderr
    assert "script.py:7: CTG201" in report
    assert "static analysis: shape (2, 4, 3, 2), strides (24, 2, 8, 1), contiguous: no" in report
    assert "torch made:      shape (2, 4, 3, 2), strides (24, 2, 8, 1), contiguous: no" in report
    assert "static analysis agrees with torch on everything it claims" in report
    assert "MODEL ERROR" not in report


def test_run_explain_json_holds_the_same(tmp_path):
    script = tmp_path / "script.py"
    script.write_text(SCRIPT)
    process = subprocess.run([sys.executable, "-m", "contiglint", "run", "--explain",
                              "--format", "json", str(script)], cwd=tmp_path,
                             env=environment(), capture_output=True, text=True, timeout=300)
    assert process.returncode == 0, process.stderr
    [entry] = json.loads(process.stderr)["entries"]
    static = entry["static_analysis"]
    assert static["static"]["strides"] == ["24", "2", "8", "1"] == \
        [str(s) for s in entry["strides"]]
    assert static["static"]["contiguous"] == "no" and static["model_errors"] == []


def test_a_refuted_claim_is_reported_as_a_model_error(tmp_path):
    script = tmp_path / "script.py"
    script.write_text(SCRIPT)
    lines = StaticView().lines(str(script), 7, "Tensor.reshape", (2, 4, 3, 2), (24, 6, 2, 1))
    assert lines[-1].startswith("MODEL ERROR: static analysis claimed contiguous: no; "
                                "strides (24, 2, 8, 1)")
    assert StaticView().compare(str(script), 7, "Tensor.reshape", (2, 4, 3, 2),
                                (24, 6, 2, 1))["model_errors"] == ["contiguous: no",
                                                                   "strides (24, 2, 8, 1)"]
    assert StaticView().lines(str(script), 7, "Tensor.view", (2,), (1,)) == [
        "static analysis: no tensor inferred for `Tensor.view` on this line"]


def test_static_layout_finds_the_receiver_of_the_op():
    analysis = analyze(SCRIPT, "script.py")
    layout = static_layout(analysis, 7, "Tensor.reshape")
    assert layout.contiguous == "no" and layout.shape == ["2", "4", "3", "2"]
    assert static_layout(analysis, 6, "Tensor.reshape").contiguous == "yes"  # x.reshape(...)


def test_only_claims_are_compared():
    """"unknown" and `?` claim nothing: no shape or strides torch makes refute them."""
    assert disagreements(describe(UNKNOWN_TENSOR), (2, 3, 8), (1, 2, 6)) == []
    partial = describe(Tensor.of(Geometry.contiguous([None, (3, ())]), None))
    assert partial.shape == ["?", "3"] and partial.strides == ["3", "1"]
    assert disagreements(partial, (7, 3), (3, 1)) == []
    assert disagreements(partial, (7, 4), (4, 1)) == ["shape (?, 3)"]
    assert disagreements(partial, (7, 3), (1, 7)) == ["contiguous: yes", "strides (3, 1)"]
