"""Source files: reading and writing them, and the status that tells a file unchanged.

Everything that reads or writes a source file lives here (finding them: discovery.py), so the
engine stays pure. Reading keeps what a fix must write back unchanged: the declared encoding
(PEP 263), a UTF-8 BOM and the line endings (the text is decoded without newline
translation). Nothing here raises on a bad file: problems come back as
`SourceError(kind="io")` with a message a user can act on.
"""
from __future__ import annotations

import codecs
import contextlib
import errno
import fnmatch
import hashlib
import io
import os
import signal
import stat
import tempfile
import threading
import time
import tokenize
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import Iterable, Optional, Union

from contiglint.engine import SourceError
from contiglint.source import text_digest

SETTLED_NS = 2_000_000_000  # above the coarsest file-system clock tick (FAT's two seconds)


def stat_signature(status: os.stat_result) -> Optional[list[int]]:
    """What a later run compares of a file's status to know its text unchanged without
    reading it (the cache's stat index, a walk's .gitignore files); None for a file whose text
    cannot be known from it: not a regular file (a FIFO), or changed less than `SETTLED_NS`
    ago. Any write sets the change time to the time of the write, which no tool can set back;
    a write in the same tick of a coarse clock as a status taken before it leaves the change
    time as it was, so a status is trusted only once no such write can still come unseen."""
    if not stat.S_ISREG(status.st_mode) or time.time_ns() - status.st_ctime_ns < SETTLED_NS:
        return None
    return [status.st_size, status.st_mtime_ns, status.st_ctime_ns, status.st_ino,
            status.st_dev]


def listing_signature(status: os.stat_result) -> Optional[list[int]]:
    """`stat_signature` for a directory's listing: an entry added, removed or renamed sets the
    directory's modification and change times. None: not a directory, or not settled."""
    if not stat.S_ISDIR(status.st_mode) or time.time_ns() - status.st_ctime_ns < SETTLED_NS:
        return None
    return [status.st_mtime_ns, status.st_ctime_ns, status.st_ino, status.st_dev]


@dataclass(frozen=True)
class SourceFile:
    """A decoded source file and what is needed to write it back byte-compatible."""

    path: str  # as displayed to the user
    text: str
    encoding: str  # "utf-8-sig" when the file starts with a BOM
    digest: str  # sha256 of the bytes read, to refuse writing over a concurrent change; ""
    # when read only to be checked (`read_source(digest=False)`): then it is never written

    @cached_property
    def text_digest(self) -> str:
        """`source.text_digest` of the text, made once: a cached run's result key and its stat
        index both use it."""
        return text_digest(self.text)


def matches(path: str, patterns: Iterable[str], root: Optional[str] = None) -> bool:
    """Whether any glob matches the path, like ruff: a pattern without a slash matches the
    file or directory name (`build`, `*_pb2.py`); one with a slash matches the path relative to
    `root`, or the working directory (`tests/data/*`, `src/**/gen_*.py`). Discovery prunes
    excluded directories, so `build` also excludes everything below it."""
    if not patterns:
        return False
    name = os.path.basename(os.path.normpath(path))
    relative = None
    for pattern in patterns:
        pattern = pattern.rstrip("/")
        if "/" not in pattern:
            if fnmatch.fnmatchcase(name, pattern):
                return True
            continue
        if relative is None:
            relative = _relative(path, root)
        pattern = pattern[2:] if pattern.startswith("./") else pattern
        if fnmatch.fnmatchcase(relative, pattern) or (
                "**/" in pattern and fnmatch.fnmatchcase(relative, pattern.replace("**/", ""))):
            return True
    return False


def _relative(path: str, root: Optional[str]) -> str:
    absolute = os.path.abspath(path)
    relative = os.path.relpath(absolute, root or os.getcwd())
    return Path(absolute if relative.startswith("..") else relative).as_posix()


def io_error(path: str, error: BaseException) -> SourceError:
    """An OSError as one line a user can act on, without a traceback."""
    reason = getattr(error, "strerror", None) or str(error) or type(error).__name__
    if isinstance(error, OSError) and error.errno == errno.ELOOP:
        reason = "symlink loop (too many levels of symbolic links)"
    return SourceError(path, 1, 1, f"cannot read: {reason}", "io")


def decode(data: bytes, path: str) -> Union[tuple[str, str], SourceError]:
    """Decode bytes as Python does (BOM, then a PEP 263 cookie, else UTF-8); keep newlines."""
    try:
        encoding, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
    except SyntaxError as error:  # an unknown cookie, or non-UTF-8 bytes without one
        encoding, reason = "utf-8", error.msg
    else:
        reason = None
    try:
        codecs.lookup(encoding)
        text = data.decode(encoding)
    except UnicodeDecodeError as error:
        line = data[:error.start].count(b"\n") + 1
        return SourceError(path, line, 1, f"cannot decode: byte 0x{data[error.start]:02x} is not "
                           f"valid {encoding}; save the file as UTF-8 or declare its encoding "
                           "with a `# -*- coding: ... -*-` comment", "io")
    except LookupError:
        return SourceError(path, 1, 1, f"cannot decode: unknown encoding {encoding!r}", "io")
    if reason:
        return SourceError(path, 1, 1, f"cannot decode: {reason}", "io")
    return text, encoding


def read_source(path: str, digest: bool = True) -> Union[SourceFile, SourceError]:
    """`digest`: False when the file will not be written, to skip hashing its bytes."""
    try:
        kind = stat.S_IFMT(os.stat(path).st_mode)
        if kind not in (stat.S_IFREG, stat.S_IFIFO):  # a FIFO named explicitly: `<(cmd)`
            reason = "a directory" if kind == stat.S_IFDIR else "a socket or device"
            return SourceError(path, 1, 1, f"cannot read: not a regular file ({reason})", "io")
        with open(path, "rb") as handle:
            data = handle.read()
    except (OSError, ValueError) as error:
        return io_error(path, error)
    decoded = decode(data, path)
    if isinstance(decoded, SourceError):
        return decoded
    text, encoding = decoded
    return SourceFile(path, text, encoding, hashlib.sha256(data).hexdigest() if digest else "")


def encode(source: SourceFile, text: str) -> bytes:
    """The new text in the file's own encoding; `utf-8-sig` writes the BOM back."""
    return text.encode(source.encoding)


def write_source(source: SourceFile, text: str) -> Optional[SourceError]:
    """Replace the file atomically with `text`, unless it changed since it was read.

    The new file is fsynced before it replaces the old one and takes its permissions. A
    symlink is followed: its target is rewritten, the link stays a link.
    """
    if not source.digest:  # read without one: whether it changed since cannot be told
        return SourceError(source.path, 1, 1, "not written: contiglint read the file without "
                           "noting its content (please report this bug)", "internal")
    target = os.path.realpath(source.path)
    try:
        data = encode(source, text)
    except UnicodeEncodeError as error:
        return SourceError(source.path, 1, 1, f"not written: the fixed text cannot be encoded as "
                           f"{source.encoding} ({error.reason})", "io")
    try:
        with open(target, "rb") as handle:
            if hashlib.sha256(handle.read()).hexdigest() != source.digest:
                return SourceError(source.path, 1, 1, "not written: the file changed on disk "
                                   "while contiglint was fixing it; run again", "io")
        atomic_write_bytes(target, data, stat.S_IMODE(os.stat(target).st_mode), durable=True)
    except OSError as error:
        reason = error.strerror or str(error)
        return SourceError(source.path, 1, 1, f"cannot write: {reason}", "io")
    return None


def atomic_write_bytes(path: str, data: bytes, mode: Optional[int] = None,
                       durable: bool = False) -> None:
    """Write a whole file so readers see the old or the new content, never half.

    The temporary file lives in the same directory, so `os.replace` is atomic; `durable`
    fsyncs it first (a user's source file is worth it, a cache entry is not).
    """
    directory = os.path.dirname(path) or "."
    with _interrupt_deferred():
        handle, temporary = tempfile.mkstemp(prefix=".contiglint-", suffix=".tmp", dir=directory)
        try:
            with os.fdopen(handle, "wb") as out:
                out.write(data)
                if durable:
                    out.flush()
                    os.fsync(out.fileno())
            if mode is not None:
                os.chmod(temporary, mode)
            os.replace(temporary, path)
        except BaseException:
            _remove_quietly(temporary)
            raise


@contextlib.contextmanager
def _interrupt_deferred():
    """Hold a Ctrl-C that arrives during one file's write and deliver it after, so that an
    interrupt between `mkstemp` and the cleanup cannot leave a temporary file behind.

    Only the main thread can set signal handlers; elsewhere (the language server's worker
    threads) the write runs as is. Pool workers ignore SIGINT altogether (runner)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = signal.getsignal(signal.SIGINT)
    if not callable(previous):  # SIG_IGN, SIG_DFL or a handler set outside Python
        yield
        return
    held = []
    signal.signal(signal.SIGINT, lambda signum, frame: held.append(frame))
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)
        if held:
            previous(signal.SIGINT, held[0])


def _remove_quietly(path: str) -> None:
    try:
        os.unlink(path)
    except OSError:
        pass
