"""Source files: reading and writing them, and the status that tells a file unchanged.

Everything that reads or writes a source file lives here (finding them: discovery.py), so the
engine stays pure. Reading keeps what a fix must write back unchanged: the declared encoding
(PEP 263), a UTF-8 BOM and the line endings (the text is decoded without newline
translation). Nothing here raises on a bad file: problems come back as
`SourceError(kind="io")` with a message a user can act on.

A file (a fixed source file, the report of `-o`, a cache entry) is saved as an editor saves
it. The new content goes to a temporary file in the same directory, which then takes the old
file's place (`os.replace`), so a reader sees the old or the new content, never half. The new
file keeps the old one's mode, owner and group: the temporary file takes them before it is
renamed. Where it cannot take them (only root may give a file to another user, and a user may
give it only a group they belong to), or where the directory takes no new file (no write
permission, a file bind-mounted on its own), the file is written in place instead, as ruff
always writes: owner, group, mode and hard links stay, but the write is not atomic.

A file that this user may not write is refused (`ReadOnly`), although its directory would let
it be replaced: its owner made it read-only (0444). Root, whom the system lets write any file,
writes it as ruff and `sed -i` do, and the mode stays 0444. A new file gets the mode that the
umask leaves of 0666 (0644 under umask 022), as `open(path, "w")` gives it.
"""
from __future__ import annotations

import codecs
import contextlib
import errno
import fnmatch
import hashlib
import io
import os
import secrets
import signal
import stat
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


TEMPORARY_PREFIX = ".contiglint-"


class ReadOnly(PermissionError):
    """The file exists and this user may not write it."""


class _OwnerNotKept(Exception):
    """The temporary file cannot take the replaced file's owner or group."""


def encode(source: SourceFile, text: str) -> bytes:
    """The new text in the file's own encoding; `utf-8-sig` writes the BOM back."""
    return text.encode(source.encoding)


def write_source(source: SourceFile, text: str) -> Optional[SourceError]:
    """Replace the file with `text` (see the module's docstring), unless it changed since it
    was read; fsynced before it replaces the old one. A symlink is followed: its target is
    rewritten, the link stays a link."""
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
        replace_file(target, data, durable=True)
    except ReadOnly as error:
        return SourceError(source.path, 1, 1, f"not written: {error.strerror}", "io")
    except OSError as error:
        reason = error.strerror or str(error)
        return SourceError(source.path, 1, 1, f"cannot write: {reason}", "io")
    return None


def replace_file(path: str, data: bytes, durable: bool = False) -> None:
    """Write `data` to `path`, keeping an existing file's mode, owner and group (see the
    module's docstring). Raises `ReadOnly` for a file this user may not write, or the OSError
    met; `durable` fsyncs the new content before it takes the old one's place."""
    try:
        status = os.stat(path)
    except FileNotFoundError:
        atomic_write_bytes(path, data, durable=durable)
        return
    _refuse_read_only(path, status)
    try:
        atomic_write_bytes(path, data, stat.S_IMODE(status.st_mode), durable,
                           owner=(status.st_uid, status.st_gid))
    except _OwnerNotKept:
        _write_in_place(path, data, durable)
    except OSError as error:
        if error.errno not in (errno.EACCES, errno.EPERM, errno.EBUSY):
            raise
        _write_in_place(path, data, durable)  # a directory that takes no new file


def _refuse_read_only(path: str, status: os.stat_result) -> None:
    """Ask the system whether this user may write the file: opening it for writing changes
    nothing (no truncation), and answers for the effective user, ACLs and read-only mounts."""
    try:
        os.close(os.open(path, os.O_WRONLY | getattr(os, "O_NONBLOCK", 0) |
                         getattr(os, "O_CLOEXEC", 0)))
    except OSError as error:
        if error.errno in (errno.EACCES, errno.EPERM, errno.EROFS):
            mode = stat.S_IMODE(status.st_mode)
            where = "on a read-only file system" if error.errno == errno.EROFS else \
                f"for this user (mode {mode:04o})"
            raise ReadOnly(error.errno, f"the file is read-only {where}; make it writable "
                           "to let contiglint change it", path) from None
        if error.errno != errno.ENXIO:  # a FIFO without a reader: writing it says more
            raise


def atomic_write_bytes(path: str, data: bytes, mode: Optional[int] = None,
                       durable: bool = False, owner: Optional[tuple[int, int]] = None) -> None:
    """Write a whole file so readers see the old or the new content, never half.

    The temporary file lives in the same directory, so `os.replace` is atomic; `durable`
    fsyncs it first (a user's source file is worth it, a cache entry is not). `mode`: the
    file's permissions (the temporary file stays private until it has them); None for a new
    file, which gets 0666 less the umask. `owner`: the (uid, gid) the file must keep; raises
    `_OwnerNotKept`, having written nothing, where the temporary file cannot take them.
    """
    directory = os.path.dirname(path) or "."
    with _interrupt_deferred():
        handle, temporary = _create_temporary(directory, 0o600 if mode is not None else 0o666)
        try:
            with os.fdopen(handle, "wb") as out:
                if owner is not None:
                    _take_owner(out.fileno(), owner)
                out.write(data)
                if durable:
                    out.flush()
                    os.fsync(out.fileno())
            if mode is not None:
                os.chmod(temporary, mode)  # after the owner: a chown clears set-user-ID bits
            os.replace(temporary, path)
        except BaseException:
            _remove_quietly(temporary)
            raise


def _create_temporary(directory: str, mode: int) -> tuple[int, str]:
    """A new file `.contiglint-*.tmp` in `directory`, opened for writing, created with `mode`
    less the umask (`tempfile.mkstemp` always makes 0600)."""
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_CLOEXEC", 0) | \
        getattr(os, "O_BINARY", 0)
    for _ in range(100):
        name = os.path.join(directory, f"{TEMPORARY_PREFIX}{secrets.token_hex(8)}.tmp")
        try:
            return os.open(name, flags, mode), name
        except FileExistsError:
            continue
    raise FileExistsError(errno.EEXIST, "no unused temporary file name", directory)


def _take_owner(handle: int, owner: tuple[int, int]) -> None:
    uid, gid = owner
    status = os.fstat(handle)
    if (status.st_uid, status.st_gid) == (uid, gid) or not hasattr(os, "fchown"):
        return
    try:
        os.fchown(handle, uid if status.st_uid != uid else -1,
                  gid if status.st_gid != gid else -1)
    except PermissionError:
        raise _OwnerNotKept() from None


def _write_in_place(path: str, data: bytes, durable: bool) -> None:
    """Overwrite the file's content through the file itself: owner, group, mode, links and
    extended attributes stay. Not atomic: a crash in the middle can leave it half written."""
    with _interrupt_deferred():
        with os.fdopen(os.open(path, os.O_WRONLY | getattr(os, "O_CLOEXEC", 0) |
                               getattr(os, "O_BINARY", 0)), "wb") as out:
            out.write(data)
            out.truncate()
            if durable:
                out.flush()
                os.fsync(out.fileno())


@contextlib.contextmanager
def _interrupt_deferred():
    """Hold a Ctrl-C that arrives during one file's write and deliver it after, so that an
    interrupt between creating the temporary file and the cleanup cannot leave it behind.

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
