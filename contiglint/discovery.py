"""Discovery: the Python files under the paths given, pruned by the excludes and .gitignore
(reading and writing them: files.py).

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

import hashlib
import json
import os
import stat
from pathlib import Path
from typing import Optional, Protocol, Sequence

from contiglint.engine import SourceError
from contiglint.files import io_error, listing_signature, matches, stat_signature

# Version control, virtual environments, installed packages and caches: never a project's
# own source. Build output (`build`, `dist`) is left to .gitignore, because a package may well
# hold a `dist/` of its own (distributed-training code). A directory holding an `__init__.py`
# is never skipped by these names or by .gitignore, only by the user's `exclude`.
DEFAULT_EXCLUDE = (
    ".bzr", ".direnv", ".eggs", ".git", ".hg", ".ipynb_checkpoints", ".mypy_cache", ".nox",
    ".pytest_cache", ".ruff_cache", ".svn", ".tox", ".venv", "venv", "__pycache__",
    "__pypackages__", "node_modules", "site-packages", ".contiglint_cache",
)


class WalkMemo(Protocol):
    """Where `discover` keeps its walks between runs (the cache's `WalkIndex`)."""

    def recall(self, key: str) -> Optional[dict]: ...

    def remember(self, key: str, walk: dict) -> None: ...


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
        root (the nearest directory holding `.git`); none outside a repository. The
        directory is named on the command line, so it is walked even where they ignore it
        (or a directory above it), as a named file is checked: their patterns then apply
        below it, as below a package kept despite .gitignore."""
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
        named = os.path.abspath(directory)
        if ignores and self.gitignored(named, True, ignores):
            return tuple((named, spec) for _, spec in ignores)
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
