"""The pytest plugin: off by default and torch-free; with --contiglint-runtime it watches the
session and prints the report in the terminal summary."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

pytest_plugins = ["pytester"]
try:  # imported before pytester snapshots sys.modules: torch cannot be imported twice
    import torch  # noqa: F401
except ImportError:
    torch = None
ROOT = Path(__file__).parent.parent


def _load_plugin() -> list:
    """`-p` unless the installed package already registers the pytest11 entry point."""
    from importlib.metadata import entry_points
    installed = any(ep.name == "contiglint" for ep in entry_points(group="pytest11"))
    return [] if installed else ["-p", "contiglint.runtime.pytest_plugin"]


def test_plugin_imports_nothing_heavy():
    code = ("import sys, contiglint.runtime.pytest_plugin as p; "
            "print('torch' in sys.modules)")
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    done = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True)
    assert done.stdout.strip() == "False", done.stderr


@pytest.fixture
def suite(pytester, monkeypatch):
    if torch is None:
        pytest.skip("needs torch")
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]))
    pytester.makepyfile(test_model="""
        import torch

        def test_copy():
            x = torch.randn(8, 8)
            assert x.t().reshape(-1).numel() == 64

        def test_clean():
            assert torch.randn(2, 2).reshape(-1).numel() == 4
    """)
    return pytester


def test_report_printed_with_option(suite):
    result = suite.runpytest_subprocess(*_load_plugin(), "--contiglint-runtime",
                                        "--contiglint-runtime-output", "rt.json")
    result.assert_outcomes(passed=2)
    result.stdout.fnmatch_lines(["*contiglint runtime*", "*test_model.py:5: CTG201*"])
    assert (suite.path / "rt.json").exists()


def test_silent_without_option(suite):
    result = suite.runpytest_subprocess(*_load_plugin())
    result.assert_outcomes(passed=2)
    assert "contiglint runtime" not in result.stdout.str()
