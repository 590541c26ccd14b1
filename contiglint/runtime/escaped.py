"""Hazards read from an exception that escaped the watched program.

Most failures are observed as they happen (a `.view()` that raises in user code is an
observation with an error). Some are not: the failing op ran inside library code
(`parameters_to_vector`), inside `torch.compile` (dynamo raises while tracing with fake
tensors, with a different message), in numpy (`np.frombuffer` of a non-contiguous array), or
in a child process (`torch.multiprocessing.spawn` re-raises the child's traceback as text).
This module recognises the layout failures among them and finds the user line to blame:
dynamo's recorded user stack first, then a traceback printed into the message (a child's),
then the innermost user frame of the traceback itself.
"""
from __future__ import annotations

import os
import re
from types import TracebackType
from typing import Callable, Iterator, Optional

from contiglint.verify.frames import Site

# Substrings of torch's view errors, eager and fake-tensor (torch.compile) versions.
VIEW_ERRORS = ("view size is not compatible", "to view ", "Use .reshape(...) instead",
               "Cannot view a tensor with shape")
# numpy/ctypes/memoryview refusing a non-contiguous buffer: raw memory of a strided array.
BUFFER_ERRORS = ("not C-contiguous", "ndarray is not contiguous",
                 "underlying buffer is not C-contiguous")
_TEXT_FRAME = re.compile(r'File "(?P<file>[^"]+)", line (?P<line>\d+), in (?P<function>\S+)')


def layout_failure(exc: BaseException) -> Optional[tuple[str, str]]:
    """(code, message) if `exc` or an exception it chains from is a layout failure."""
    for error in _chain(exc):
        message = str(error)
        if isinstance(error, RuntimeError) and any(m in message for m in VIEW_ERRORS):
            return "CTG101", message
        if isinstance(error, (ValueError, BufferError, TypeError)) \
                and any(m in message for m in BUFFER_ERRORS):
            return "CTG106", message
    return None


def blamed_site(exc: BaseException, is_user_file: Callable[[str], bool]) -> Optional[Site]:
    """The user line that led to `exc` (see the module docstring for the order)."""
    for error in _chain(exc):
        for frame in reversed(getattr(error, "real_stack", None) or ()):
            filename = getattr(frame, "filename", None)
            if filename and _user(filename, is_user_file):
                return Site(_absolute(filename), frame.lineno, frame.name)
    for error in _chain(exc):
        frames = list(_TEXT_FRAME.finditer(str(error)))
        for match in reversed(frames):
            if _user(match["file"], is_user_file):
                return Site(_absolute(match["file"]), int(match["line"]), match["function"])
    return _innermost_user_frame(exc.__traceback__, is_user_file)


def _innermost_user_frame(traceback: Optional[TracebackType],
                          is_user_file: Callable[[str], bool]) -> Optional[Site]:
    found = None
    while traceback is not None:
        code = traceback.tb_frame.f_code
        if _user(code.co_filename, is_user_file):
            found = Site(_absolute(code.co_filename), traceback.tb_lineno, code.co_name)
        traceback = traceback.tb_next
    return found


def _chain(exc: BaseException, limit: int = 8) -> Iterator[BaseException]:
    seen: set[int] = set()
    error: Optional[BaseException] = exc
    while error is not None and id(error) not in seen and len(seen) < limit:
        seen.add(id(error))
        yield error
        error = error.__cause__ or error.__context__


def _user(filename: str, is_user_file: Callable[[str], bool]) -> bool:
    if filename.startswith("<"):
        return is_user_file(filename)
    return is_user_file(_absolute(filename))


def _absolute(filename: str) -> str:
    return filename if filename.startswith("<") else os.path.abspath(filename)
