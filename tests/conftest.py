"""The `slow` marker, and a run that says what it did not check.

Tests marked `slow` (the evaluations that run every case under torch or lint whole corpora,
and the fuzzers at their full counts) are skipped unless `--run-slow` is given; CI (.ci/run)
gives it. A skipped test is listed at the end of every run, with its reason (`-rs` in the
pytest options of pyproject.toml), and a closing line counts what was not checked, so a
default run never passes silently over an evaluation.
"""
from __future__ import annotations

import pytest

SLOW_REASON = "slow: CI runs it (.ci/run); run it with `python -m pytest --run-slow`"


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption("--run-slow", action="store_true", default=False,
                     help="also run the tests marked slow (CI does)")
    parser.addoption("--torch-device", default="cpu", metavar="DEVICE",
                     help="make the tensors that tests create without a device on DEVICE "
                          "(torch.set_default_device), to check torch facts on a GPU: "
                          "--torch-device cuda")


def pytest_configure(config: pytest.Config) -> None:
    device = config.getoption("--torch-device")
    if device != "cpu":
        import torch

        torch.set_default_device(device)


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    if config.getoption("--run-slow"):
        return
    skip = pytest.mark.skip(reason=SLOW_REASON)
    for item in items:
        if "slow" in item.keywords:
            item.add_marker(skip)


def pytest_terminal_summary(terminalreporter, exitstatus, config: pytest.Config) -> None:
    reasons = [str(report.longrepr) for report in terminalreporter.stats.get("skipped", [])]
    slow = sum(SLOW_REASON in reason for reason in reasons)
    unchecked = sum("NOT CHECKED" in reason for reason in reasons)
    other = len(reasons) - slow - unchecked
    parts = ([f"{slow} slow test(s): pass --run-slow, as CI does"] if slow else []) + \
            ([f"{unchecked} test(s) whose data is missing here"] if unchecked else []) + \
            ([f"{other} other skipped test(s)"] if other else [])
    if parts:
        terminalreporter.write_line("NOT CHECKED in this run (reasons above): " +
                                    "; ".join(parts), yellow=True, bold=True)
