"""Which stack frame is "the user's line": the call site an observation is attributed to.

A torch op is usually reached through plumbing: `handle_torch_function` in torch/overrides.py,
the Python wrapper that called it (torch/functional.py `split`, torch/_tensor.py `wrapped`),
boolean-dispatch shims in torch/_jit_internal.py, and the tracer's own frames. A call is
*direct* when the first frame past that plumbing is a user file: the user wrote this op on that
line. It is *indirect* when library code (an `nn.Module.forward` inside torch, a helper in
site-packages) made the call on the user's behalf; its site is then the innermost user frame,
i.e. the line in user code that led to it.

"User file" is decided by filename only, cached per code object, so the per-call cost is a few
dict lookups while walking a handful of frames.
"""
from __future__ import annotations

import os
import sys
import sysconfig
from types import CodeType, FrameType
from typing import Callable, Collection, NamedTuple, Optional, Union

import torch

import contiglint


class Site(NamedTuple):
    """A line in user code. `function` is the enclosing function's name, for messages."""

    file: str
    line: int
    function: str

    def __str__(self) -> str:
        return f"{self.file}:{self.line}"


def _package_dir(module) -> str:
    return os.path.dirname(os.path.abspath(module.__file__)) + os.sep


_TORCH_DIR = _package_dir(torch)
_CONTIGLINT_DIR = _package_dir(contiglint)
_OVERRIDES = os.path.join(_TORCH_DIR, "overrides.py")
_MODULE = os.path.join(_TORCH_DIR, "nn", "modules", "module.py")
_MODULE_CALL = frozenset({"_call_impl", "_wrapped_call_impl", "inner"})
_INTERACTIVE = ("<stdin>", "<ipython-input", "<doctest")
_PLUMBING = tuple(os.path.join(_TORCH_DIR, name) for name in (
    "overrides.py", "_tensor.py", "_jit_internal.py", os.path.join("utils", "_device.py"),
    "_compile.py", os.path.join("_dynamo", "eval_frame.py"), "_ops.py",
))


def library_dirs() -> tuple[str, ...]:
    """Directories whose code is never "user code": torch, contiglint, the standard library,
    every site-packages directory (so installed libraries count as library internals) and the
    scripts directories, where installers put console-script launchers (`bin/contiglint`,
    `bin/pytest`: a line that imports a package's `main` and calls it)."""
    dirs = {_TORCH_DIR, _CONTIGLINT_DIR}
    paths = sysconfig.get_paths()
    user_scripts = sysconfig.get_paths(sysconfig.get_preferred_scheme("user")).get("scripts")
    for key in ("stdlib", "platstdlib", "purelib", "platlib", "scripts"):
        if paths.get(key):
            dirs.add(os.path.abspath(paths[key]) + os.sep)
    if user_scripts:
        dirs.add(os.path.abspath(user_scripts) + os.sep)
    for entry in sys.path:
        if entry.endswith(("site-packages", "dist-packages")):
            dirs.add(os.path.abspath(entry) + os.sep)
    return tuple(sorted(dirs))


def is_contiglint(filename: str) -> bool:
    """Whether `filename` is one of contiglint's own modules."""
    return os.path.abspath(filename).startswith(_CONTIGLINT_DIR)


FileFilter = Union[None, Collection[str], Callable[[str], bool]]


class FrameClassifier:
    """Decides, per code object, whether a frame belongs to user code.

    `files`: None means every file outside the library directories; a collection of paths means
    those files, and every file under those directories; a callable receives the filename.
    `library`: extra directories to treat as library code (on top of `library_dirs()`).
    """

    def __init__(self, files: FileFilter = None, library: Collection[str] = ()) -> None:
        self._library = library_dirs() + tuple(os.path.abspath(p) + os.sep for p in library)
        self._wanted: Optional[Callable[[str], bool]]
        if files is None:
            self._wanted = None
        elif callable(files):
            self._wanted = files
        else:
            exact = {os.path.abspath(f) for f in files}
            prefixes = tuple(p.rstrip(os.sep) + os.sep for p in exact)
            self._wanted = lambda name: name in exact or name.startswith(prefixes)
        self._user: dict[CodeType, bool] = {}
        self._files: dict[str, bool] = {}

    def is_user(self, code: CodeType) -> bool:
        known = self._user.get(code)
        if known is None:
            known = self._user[code] = self._classify(code.co_filename)
        return known

    def is_user_file(self, filename: str) -> bool:
        """Same decision as `is_user`, for a filename (e.g. where a class is defined)."""
        known = self._files.get(filename)
        if known is None:
            known = self._files[filename] = self._classify(filename)
        return known

    def _classify(self, filename: str) -> bool:
        if filename.startswith("<"):
            # <stdin>, IPython cells and doctests are typed by the user; <string> (dataclass
            # and namedtuple bodies), <eval_with_key> (torch.fx) and <frozen ...> are generated.
            return filename.startswith(_INTERACTIVE) and (
                self._wanted is None or bool(self._wanted(filename)))
        path = os.path.abspath(filename)
        if path.startswith(self._library):
            return False
        return self._wanted is None or bool(self._wanted(path))

    def call_site(self, frame: Optional[FrameType], indirect: bool) -> Optional[tuple[Site, bool]]:
        """(site, direct) for an op whose innermost caller frame is `frame`, or None.

        Plumbing frames are skipped; after torch/overrides.py the next frame is the op's own
        Python body (`torch.functional.split`...) and is skipped as well. With `indirect=False`
        the walk stops at the first frame that is neither plumbing nor user code.
        """
        skip_body = False
        while frame is not None:
            name = frame.f_code.co_filename
            if name == _OVERRIDES:
                skip_body = True
            elif skip_body:
                skip_body = False
            elif not (name.startswith(_PLUMBING) or name.startswith(_CONTIGLINT_DIR)
                      or (name == _MODULE and frame.f_code.co_name in _MODULE_CALL)):
                break
            frame = frame.f_back
        direct = True
        while frame is not None:
            code = frame.f_code
            if self.is_user(code):
                name = code.co_filename
                return Site(name if name.startswith("<") else os.path.abspath(name),
                            frame.f_lineno, code.co_name), direct
            if not indirect:
                return None
            direct = False
            frame = frame.f_back
        return None
