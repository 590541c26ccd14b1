"""Files at the edge of the program: discovery, excludes, reading and atomic writing.

Everything that touches the file system for source files lives here, so the engine stays pure.
Reading keeps what a fix must write back unchanged: the declared encoding (PEP 263), a UTF-8
BOM and the line endings (the text is decoded without newline translation). Nothing here raises
on a bad file: problems come back as `SourceError(kind="io")` with a message a user can act on.

A run with a cache need not walk the tree again to know what it holds (`discover`'s `memo`):
a walk notes what it read (each directory's listing, each .gitignore, whether a `.git` or an
`__init__.py` is there), with the status of each directory and .gitignore before it was read,
and a later walk with the same arguments whose every input says the same takes its files (as
git's untracked cache trusts a directory's modification time). Adding, removing or renaming an
entry changes the directory's modification and change times; a status is trusted only once
its change time is `SETTLED_NS` old (see `stat_signature`), and a walk that follows a symlink
(whose target can change while no directory walked does) or meets an error is not noted.
"""
from __future__ import annotations

import codecs
import contextlib
import errno
import fnmatch
import hashlib
import io
import json
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
from typing import Iterable, Optional, Protocol, Sequence, Union

from contiglint.engine import SourceError
from contiglint.source import text_digest

# Version control, virtual environments, installed packages and caches: never a project's
# own source. Build output (`build`, `dist`) is left to .gitignore, because a package may well
# hold a `dist/` of its own (distributed-training code). A directory holding an `__init__.py`
# is never skipped by these names or by .gitignore, only by the user's `exclude`.
DEFAULT_EXCLUDE = (
    ".bzr", ".direnv", ".eggs", ".git", ".hg", ".ipynb_checkpoints", ".mypy_cache", ".nox",
    ".pytest_cache", ".ruff_cache", ".svn", ".tox", ".venv", "venv", "__pycache__",
    "__pypackages__", "node_modules", "site-packages", ".contiglint_cache",
)


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


class WalkMemo(Protocol):
    """Where `discover` keeps its walks between runs (the cache's `WalkIndex`)."""

    def recall(self, key: str) -> Optional[dict]: ...

    def remember(self, key: str, walk: dict) -> None: ...


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


def discover(paths: Sequence[str], exclude: Optional[Sequence[str]] = None,
             extend_exclude: Sequence[str] = (), root: Optional[str] = None,
             respect_gitignore: bool = True, memo: Optional[WalkMemo] = None
             ) -> tuple[list[str], list[SourceError]]:
    """Expand paths into Python files, sorted and without duplicates.

    A file named explicitly is always linted (whatever its suffix or the excludes), as ruff
    and flake8 do; directories are walked for `*.py`, pruning what `exclude` (the user's
    list, or else `DEFAULT_EXCLUDE`), `extend_exclude` and the `.gitignore` files (from the
    repository's root down) exclude. Neither the default names nor .gitignore skip a
    directory that holds an `__init__.py`: only the user's own excludes do. Symlinked
    directories are followed; a directory reached twice is walked once, and a symlink loop
    is reported instead of walked forever. `memo`: an earlier walk with the same arguments
    whose inputs are unchanged gives the files without walking (see the module's docstring).
    """
    builtin = DEFAULT_EXCLUDE if exclude is None else ()
    user = tuple(exclude or ()) + tuple(extend_exclude)
    key = ""
    if memo is not None:
        key = hashlib.sha256(json.dumps([os.getcwd(), list(paths), builtin, user, root,
                                         respect_gitignore]).encode("utf-8", "surrogatepass")
                             ).hexdigest()
        remembered = _still_true(memo.recall(key))
        if remembered is not None:
            return remembered, []
    walk = _Walk(builtin, user, root, respect_gitignore)
    for path in paths:
        try:
            is_dir = stat.S_ISDIR(os.stat(path).st_mode)
        except OSError as error:
            walk.errors.append(io_error(path, error))
            continue
        walk.inputs.append(["isdir", path, is_dir])
        if is_dir:
            walk.directory(path, frozenset(), walk.ignores_above(path))
        else:
            walk.files.append(path)
    seen: set[str] = set()
    unique = []
    for path in walk.files:
        key_path = os.path.normpath(path)
        if key_path not in seen:
            seen.add(key_path)
            unique.append(path)
    found = sorted(unique, key=_PartsKey().of)
    if memo is not None and walk.rememberable and not walk.errors and walk.walked:
        memo.remember(key, {"files": list(found), "inputs": walk.inputs})
    return found, walk.errors


class _PartsKey:
    """`Path(path).parts` as a sort key, made once per directory instead of once per file
    (the parts of the directory, then the file's name): the order of `sorted(key=lambda p:
    Path(p).parts)`, which puts `a/x.py` before `a-b/x.py` and `a.py`."""

    def __init__(self) -> None:
        self.directories: dict[str, tuple[str, ...]] = {}

    def of(self, path: str) -> tuple[str, ...]:
        head, name = os.path.split(path)
        parts = self.directories.get(head)
        if parts is None:
            parts = self.directories[head] = Path(head).parts
        return parts + (name,) if name else Path(path).parts


def _still_true(walk: Optional[dict]) -> Optional[list[str]]:
    """The files of a remembered walk whose every input still says what it said then (each
    input as `_Walk` notes it); None when one does not, or the walk is not one (a corrupt
    cache)."""
    if walk is None:
        return None
    try:
        for kind, path, then in walk["inputs"]:
            if _input_now(kind, path) != then:
                return None
        files = walk["files"]
        if not all(isinstance(path, str) for path in files):
            return None
        return list(files)
    except (KeyError, TypeError, ValueError):
        return None


def _input_now(kind: str, path: str) -> object:
    """What the walk's input `kind` (see `_Walk.inputs`) says of `path` now."""
    if kind == "exists":
        return os.path.exists(path)
    if kind == "isfile":
        return os.path.isfile(path)
    try:
        status = os.stat(path)
    except OSError:
        return "absent"
    if kind == "isdir":
        return stat.S_ISDIR(status.st_mode)
    if kind == "dir":
        return listing_signature(status)
    if kind == "file":
        return stat_signature(status)
    raise ValueError(f"unknown walk input {kind!r}")


_Ignores = tuple  # ((directory, GitIgnoreSpec), ...) from the outermost .gitignore inwards


class _Walk:
    def __init__(self, builtin: tuple[str, ...], user: tuple[str, ...], root: Optional[str],
                 respect_gitignore: bool) -> None:
        self.builtin, self.user, self.root = builtin, user, root
        self.respect_gitignore = respect_gitignore
        self.files: list[str] = []
        self.errors: list[SourceError] = []
        self.walked: set[tuple[int, int]] = set()
        # what the walk read, each as [kind, path, what it said] (`_input_now` asks again):
        # "isdir" (a named path is a directory), "dir" (a listing: the directory's
        # `listing_signature` before it was read), "file" (a .gitignore: its `stat_signature`
        # before it was read, or "absent"), "exists" (a `.git`), "isfile" (an `__init__.py`)
        self.inputs: list[list] = []
        self.rememberable = True  # no symlink followed, every status settled
        self.read_patterns = False  # a .gitignore was read (with pathspec)

    def _noted(self, kind: str, path: str, value: object) -> None:
        if value is None:  # a status changed too recently to vouch for what was read
            self.rememberable = False
        self.inputs.append([kind, path, value])

    def ignores_above(self, directory: str) -> _Ignores:
        """The .gitignore files of the directories above `directory`, up to the repository
        root (the nearest directory holding `.git`); none outside a repository."""
        if not self.respect_gitignore:
            return ()
        chain = []
        current = os.path.abspath(directory)
        while True:
            parent = os.path.dirname(current)
            marker = os.path.join(current, ".git")
            found = os.path.exists(marker)
            self._noted("exists", marker, found)
            if found:
                break
            if parent == current:
                return ()
            current = parent
            chain.append(current)
        ignores: _Ignores = ()
        for above in reversed(chain):
            ignores = self._with_gitignore(above, ignores)
        return ignores

    def _with_gitignore(self, directory: str, ignores: _Ignores,
                        listed: Optional[bool] = None) -> _Ignores:
        """`ignores` and the directory's .gitignore; `listed`: whether the directory's
        listing, which the walk notes, holds one (None: a directory above the walk's)."""
        if not self.respect_gitignore or listed is False:
            return ignores
        path = os.path.join(directory, ".gitignore")
        self._noted("file", path, _input_now("file", path))
        try:
            with open(path, encoding="utf-8", errors="replace") as handle:
                lines = handle.read().splitlines()
        except OSError:
            return ignores
        import pathspec  # only once a .gitignore is found

        if not self.read_patterns:  # another pathspec may read the patterns otherwise
            self.read_patterns = True
            self._noted("file", pathspec.__file__, _input_now("file", pathspec.__file__))
        return ignores + ((os.path.abspath(directory), pathspec.GitIgnoreSpec.from_lines(lines)),)

    @staticmethod
    def gitignored(absolute: str, is_dir: bool, ignores: _Ignores) -> bool:
        """Git's answer for the absolute path `absolute`, which is below every directory of
        `ignores`: the deepest .gitignore with a matching pattern decides."""
        verdict = None
        for base, spec in ignores:
            relative = absolute[len(base.rstrip(os.sep)) + 1:]
            if os.sep != "/":
                relative = relative.replace(os.sep, "/")
            result = spec.check_file(relative + "/" if is_dir else relative).include
            if result is not None:
                verdict = result
        return bool(verdict)

    def directory(self, directory: str, ancestors: frozenset[tuple[int, int]],
                  ignores: _Ignores = ()) -> None:
        try:
            info = os.stat(directory)
            key = (info.st_dev, info.st_ino)
            if key in ancestors:
                self.errors.append(SourceError(
                    directory, 1, 1, "symlink loop: this directory contains itself; skipped",
                    "io"))
                return
            if key in self.walked:
                return
            self.walked.add(key)
            self._noted("dir", directory, listing_signature(info))
            entries = sorted(os.scandir(directory), key=lambda entry: entry.name)
        except OSError as error:
            self.errors.append(io_error(directory, error))
            return
        ignores = self._with_gitignore(directory, ignores,
                                       any(entry.name == ".gitignore" for entry in entries))
        absolute = os.path.abspath(directory)
        for entry in entries:
            path = entry.name if directory == "." else entry.path
            if matches(path, self.user, self.root):
                continue
            try:
                is_dir, is_file = entry.is_dir(), entry.is_file()  # both follow symlinks
                if (is_dir or entry.name.endswith(".py")) and entry.is_symlink():
                    self.rememberable = False  # its target can change, this listing not
            except OSError as error:
                self.errors.append(io_error(path, error))
                continue
            if is_dir:
                ignored = self.gitignored(os.path.join(absolute, entry.name), True, ignores)
                if ignored or matches(path, self.builtin, self.root):
                    package = os.path.join(path, "__init__.py")
                    kept = os.path.isfile(package)
                    self._noted("isfile", package, kept)
                    if not kept:
                        continue
                inner = ignores
                if ignored:  # a package kept despite .gitignore: patterns above it now match
                    # paths below it, so `dist/` no longer covers all of `mypkg/dist/`
                    inner = tuple((os.path.join(absolute, entry.name), spec)
                                  for _, spec in ignores)
                self.directory(path, ancestors | {key}, inner)
            elif self.gitignored(os.path.join(absolute, entry.name), False, ignores):
                continue
            elif is_file and entry.name.endswith(".py"):
                self.files.append(path)
            elif entry.name.endswith(".py") and entry.is_symlink():
                try:
                    os.stat(path)  # broken or looping: say which
                except OSError as error:
                    self.errors.append(io_error(path, error))
                    continue
                self.errors.append(_not_regular(path))
            elif entry.name.endswith(".py"):  # a FIFO, socket or device: never opened
                self.errors.append(_not_regular(path))


def _not_regular(path: str) -> SourceError:
    return SourceError(path, 1, 1, "cannot read: not a regular file (a FIFO, socket or "
                       "device); skipped", "io")


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
