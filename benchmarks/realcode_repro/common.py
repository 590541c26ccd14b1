"""Shared by the reproduction scripts: run a case, print its outcome in one line."""
from __future__ import annotations

import traceback


def outcome(label: str, fn) -> str:
    """Run `fn()`; return and print 'raises: ...' or what it returned (a short description)."""
    try:
        result = fn()
        text = f"ok: {result}"
    except Exception as error:  # the point: does the flagged line raise?
        text = f"raises: {type(error).__name__}: {str(error).splitlines()[0][:120]}"
        if "-v" in __import__("sys").argv:
            traceback.print_exc()
    print(f"{label}: {text}")
    return text
