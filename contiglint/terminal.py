"""What the CLI does on a terminal: colour (NO_COLOR, FORCE_COLOR) and the progress line."""
from __future__ import annotations

import os
import sys
import time


def _is_terminal(stream) -> bool:
    try:
        return stream.isatty()
    except (AttributeError, ValueError):
        return False


def use_color(stream) -> bool:
    """Colour on a terminal unless NO_COLOR is set (https://no-color.org); FORCE_COLOR forces
    it (for pagers and CI logs that render ANSI)."""
    if os.environ.get("NO_COLOR"):
        return False
    return bool(os.environ.get("FORCE_COLOR")) or _is_terminal(stream)


class Progress:
    """`contiglint: 1200/5000 files` on stderr, rewritten in place, for long runs on a
    terminal (more than PROGRESS_ABOVE files); erased when the run ends."""

    PROGRESS_ABOVE = 300

    def __init__(self, enabled: bool) -> None:
        self.enabled, self.shown, self.last = enabled, False, 0.0

    def __call__(self, done: int, total: int) -> None:
        if not self.enabled or total <= self.PROGRESS_ABOVE:
            return
        now = time.monotonic()
        if done < total and now - self.last < 0.1:
            return
        self.last, self.shown = now, True
        sys.stderr.write(f"\rcontiglint: {done}/{total} files checked")
        sys.stderr.flush()

    def done(self) -> None:
        if self.shown:
            sys.stderr.write("\r\x1b[2K")
            sys.stderr.flush()
            self.shown = False
