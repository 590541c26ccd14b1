"""pytest plugin: `pytest --contiglint-runtime` runs the whole session under the watcher.

Registered through the `pytest11` entry point, so it is loaded in every pytest run of an
environment where contiglint is installed: it must cost nothing unless asked. Hence torch and
the watcher are imported only when the option is given. The report is printed in the terminal
summary; `--contiglint-runtime-output FILE` also writes it as JSON.
"""
from __future__ import annotations

from typing import Any, Optional

_STATE_KEY = "_contiglint_watch"


def pytest_addoption(parser: Any) -> None:
    group = parser.getgroup("contiglint", "contiglint runtime layout checks")
    group.addoption("--contiglint-runtime", action="store_true", default=False,
                    help="watch the test session for PyTorch layout hazards in your code "
                         "and print a report at the end")
    group.addoption("--contiglint-runtime-output", metavar="FILE", default=None,
                    help="also write the runtime report as JSON to FILE")


def pytest_configure(config: Any) -> None:
    if not config.getoption("contiglint_runtime", False):
        return
    try:
        import torch  # noqa: F401
    except ModuleNotFoundError as error:
        if (error.name or "").split(".")[0] != "torch":
            raise
        import pytest

        pytest.exit("--contiglint-runtime needs PyTorch, which is not installed; install it "
                    "with `pip install 'contiglint[runtime]'` (or `pip install torch`)",
                    returncode=2)
    from contiglint.runtime.watcher import watch
    watcher = watch()
    watcher.__enter__()
    setattr(config, _STATE_KEY, watcher)


def pytest_terminal_summary(terminalreporter: Any, exitstatus: int, config: Any) -> None:
    watcher = _stop(config)
    if watcher is None:
        return
    terminalreporter.section("contiglint runtime")
    for line in watcher.report.to_text().splitlines():
        terminalreporter.write_line(line)
    output: Optional[str] = config.getoption("contiglint_runtime_output", None)
    if output:
        with open(output, "w", encoding="utf-8") as stream:
            stream.write(watcher.report.to_json() + "\n")


def pytest_unconfigure(config: Any) -> None:
    _stop(config)


def _stop(config: Any) -> Any:
    watcher = getattr(config, _STATE_KEY, None)
    if watcher is not None and watcher._tracer.active:
        watcher.__exit__(None, None, None)
    return watcher
