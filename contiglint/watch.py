"""`contiglint --watch`: check, then check again whenever a Python file changes.

Polls with the standard library (`os.stat` of the files discovery finds, every half second),
so it needs no dependency and behaves the same on every platform. Each poll costs one `stat`
per file and one directory walk; a run that is already going finishes before the next poll.
Ctrl-C ends it cleanly (no traceback, status 130).
"""
from __future__ import annotations

import os
import sys
import time
from typing import Callable, Sequence

from contiglint.discovery import discover

INTERVAL = 0.5  # seconds between polls


def snapshot(paths: Sequence[str], config) -> dict[str, tuple[int, int]]:
    """path -> (mtime_ns, size) of every file a run would check and of the pyproject.toml
    files above them (a configuration error: of every `*.py` and pyproject.toml below)."""
    if config is None:
        files, _ = discover(paths)
    else:
        files, _ = discover(paths, config.exclude, config.extend_exclude, config.root,
                            config.respect_gitignore)
    files += [os.path.join(directory, "pyproject.toml") for directory in _above(paths)]
    state = {}
    for path in files:
        try:
            info = os.stat(path)
        except OSError:
            continue
        state[path] = (info.st_mtime_ns, info.st_size)
    return state


def watch(configure: Callable[[], object], check: Callable[[object, object], int],
          paths: Sequence[str], interval: float = INTERVAL) -> int:
    """Loop until Ctrl-C: read the configuration (`configure()` returns (config, options), or
    an exit status for a configuration error, which is shown and waited out like a finding),
    check, then wait for a change to a checked file or to the pyproject.toml."""
    try:
        while True:
            _banner("Checking")
            configured = configure()
            config = configured[0] if isinstance(configured, tuple) else None
            before = snapshot(paths, config)
            if config is not None:
                check(*configured)
            _banner("Watching for changes (Ctrl-C to stop)")
            while snapshot(paths, config) == before:
                time.sleep(interval)
    except KeyboardInterrupt:
        sys.stdout.flush()
        print("contiglint: stopped watching", file=sys.stderr)
        return 130


def _above(paths: Sequence[str]) -> set[str]:
    directories = set()
    for path in paths:
        current = os.path.abspath(path if os.path.isdir(path) else os.path.dirname(path) or ".")
        while current not in directories:
            directories.add(current)
            parent = os.path.dirname(current)
            if parent == current:
                break
            current = parent
    return directories


def _banner(what: str) -> None:
    sys.stdout.write(f"[{time.strftime('%H:%M:%S')}] {what}...\n")
    sys.stdout.flush()
