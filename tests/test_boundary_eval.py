"""Re-created real bugs at kernel, custom-op, extension and collective boundaries as a floor.

tests/boundary_bugs/ was collected by someone who had not read contiglint's code (provenance in
each bug's PROVENANCE.md). benchmarks/boundary_eval.py lints each bug directory together with
the shared `_support/` package and runs `contiglint run` on buggy.py and fixed.py; the rates
must not fall below what was measured (raise the floors as the model improves; the benchmark
prints every bug's outcome).
"""
from __future__ import annotations

import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

pytest.importorskip("torch")

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "benchmarks"))

import boundary_eval  # noqa: E402

STATIC_FLOOR = 0.75  # measured 24/32 = 75.0%
RUNTIME_FLOOR = 0.96  # measured 31/32 = 96.9%
FIXED_QUIET_STATIC_FLOOR = 1.0  # measured 32/32
FIXED_QUIET_RUNTIME_FLOOR = 1.0  # measured 32/32


@pytest.fixture(scope="module")
def rows():
    bugs = sorted(p for p in boundary_eval.DEFAULT_SET.iterdir()
                  if p.is_dir() and not p.name.startswith("_") and (p / "buggy.py").exists())
    assert len(bugs) >= 25
    with ThreadPoolExecutor(2) as pool:
        return list(pool.map(boundary_eval.evaluate, bugs))


def rate(rows, key) -> float:
    return sum(bool(r[key]) for r in rows) / len(rows)


def test_static_recall(rows):
    assert rate(rows, "static") >= STATIC_FLOOR, [r["bug"] for r in rows if not r["static"]]


def test_runtime_recall(rows):
    assert rate(rows, "runtime") >= RUNTIME_FLOOR, [r["bug"] for r in rows if not r["runtime"]]


def test_fixed_programs_are_quiet(rows):
    quiet_static = sum(not r["fixed_static"] for r in rows) / len(rows)
    quiet_runtime = sum(not r["fixed_runtime"] for r in rows) / len(rows)
    assert quiet_static >= FIXED_QUIET_STATIC_FLOOR, [
        (r["bug"], r["fixed_static"]) for r in rows if r["fixed_static"]]
    assert quiet_runtime >= FIXED_QUIET_RUNTIME_FLOOR, [
        (r["bug"], r["fixed_runtime"]) for r in rows if r["fixed_runtime"]]
