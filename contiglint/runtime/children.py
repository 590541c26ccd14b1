"""Watching the processes a watched program starts, and merging their reports into its own.

Distributed training runs its collectives in child processes (`torch.multiprocessing.spawn`,
`multiprocessing` with fork or spawn, DataLoader workers), where a watcher living only in the
parent sees nothing. While a `Watch(children=True)` is active (`contiglint run` uses one):

* forked children inherit the watcher itself (its torch function mode and patches are copied
  with the process); an `os.register_at_fork` hook gives the child an empty report, so the
  parent's entries are not counted twice, and arranges for the child to write its report when
  it exits: at `atexit` for plain forks, and through a `multiprocessing.util.Finalize`
  registered after multiprocessing's own post-fork clean-up for multiprocessing children
  (which leave with `os._exit`, skipping atexit);
* new interpreters (spawn, forkserver, subprocess) inherit two environment variables:
  CONTIGLINT_RUNTIME_CHILD (the watch settings and a report directory, as JSON) and a
  PYTHONPATH starting with `child_site/`, whose `sitecustomize.py` starts a watcher with the
  same settings as soon as the child imports torch, and writes its report at exit.

Children write `<pid>-<random>.json` into a private temporary directory; when the parent's
watch ends it reads them all, merges them (same file:line:op entries add up) and removes the
directory. A child killed by a signal writes nothing; a file predicate passed as `files`
cannot cross a process boundary, so spawned children then watch every non-library file.
"""
from __future__ import annotations

import atexit
import json
import multiprocessing.util
import os
import shutil
import sys
import tempfile
import uuid
from typing import Any, Optional

ENV = "CONTIGLINT_RUNTIME_CHILD"
SITE_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "child_site")

_current: Optional["ChildReports"] = None   # whose children this process collects for
_fork_hook_installed = False
_dumped_in: Optional[int] = None            # the pid that already wrote its report


class ChildReports:
    """The parent side: export the settings on `start()`, collect the reports on `stop()`.
    Also the child side's handle on its own watch (`watch`, `directory`)."""

    def __init__(self, watch: Any, settings: dict, directory: Optional[str] = None) -> None:
        self.watch = watch
        self.settings = settings
        self.directory = directory
        self._saved_env: dict[str, Optional[str]] = {}

    def start(self) -> bool:
        """False (and nothing changed) if another watch already collects children here."""
        global _current
        if _current is not None:
            return False
        self.directory = tempfile.mkdtemp(prefix="contiglint-children-")
        for name in (ENV, "PYTHONPATH"):
            self._saved_env[name] = os.environ.get(name)
        os.environ[ENV] = json.dumps({**self.settings, "directory": self.directory})
        paths = os.environ.get("PYTHONPATH")
        os.environ["PYTHONPATH"] = SITE_DIR + (os.pathsep + paths if paths else "")
        _current = self
        _install_fork_hooks(self)
        return True

    def stop(self) -> list[dict]:
        """Restore the environment; return the children's reports (JSON dicts)."""
        global _current
        if _current is self:
            _current = None
        for name, value in self._saved_env.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value
        reports = []
        if self.directory and os.path.isdir(self.directory):
            for name in sorted(os.listdir(self.directory)):
                if name.endswith(".json"):
                    try:
                        with open(os.path.join(self.directory, name), encoding="utf-8") as f:
                            reports.append(json.load(f))
                    except (OSError, ValueError):
                        continue  # a child died while writing: its report is lost, not ours
            shutil.rmtree(self.directory, ignore_errors=True)
        return reports


def _install_fork_hooks(reports: ChildReports) -> None:
    global _fork_hook_installed
    if not _fork_hook_installed:  # os.register_at_fork cannot be undone: install once
        os.register_at_fork(after_in_child=_after_fork_in_child)
        _fork_hook_installed = True
    # Run by multiprocessing in its children after it clears the finalizer registry.
    multiprocessing.util.register_after_fork(reports, _finalize_in_multiprocessing_child)


def _after_fork_in_child() -> None:
    reports = _current
    if reports is None or not reports.watch.active:
        return
    from contiglint.runtime.report import Report
    reports.watch.report = Report()   # the parent keeps (and reports) what it saw before
    atexit.register(_write_report)


def _finalize_in_multiprocessing_child(reports: ChildReports) -> None:
    if reports is _current:
        multiprocessing.util.Finalize(None, _write_report, exitpriority=100)


def _write_report() -> None:
    """Write this process's report into the parent's directory, once per process."""
    global _dumped_in
    reports = _current
    if reports is None or _dumped_in == os.getpid() or not reports.directory:
        return
    _dumped_in = os.getpid()
    try:
        name = os.path.join(reports.directory, f"{os.getpid()}-{uuid.uuid4().hex[:8]}")
        with open(name + ".tmp", "w", encoding="utf-8") as stream:
            json.dump({"pid": os.getpid(), **reports.watch.report.as_json()}, stream)
        os.replace(name + ".tmp", name + ".json")
    except OSError as error:
        print(f"contiglint run: child {os.getpid()} could not write its report: {error}",
              file=sys.stderr)


# -- the child side of spawned interpreters -------------------------------------------------
def start_when_torch_is_imported() -> None:
    """Called by child_site/sitecustomize.py: start watching right after `import torch`."""
    if "torch" in sys.modules:
        _start_child_watch()
    else:
        sys.meta_path.insert(0, _AfterTorchImport())


class _AfterTorchImport:
    """A meta path finder that lets the normal finders locate torch, then runs the watcher
    start-up once torch's own module body has finished executing."""

    def find_spec(self, name: str, path: Any = None, target: Any = None) -> Any:
        if name != "torch":
            return None
        sys.meta_path.remove(self)
        import importlib.util
        spec = importlib.util.find_spec(name)
        if spec is None or spec.loader is None or not hasattr(spec.loader, "exec_module"):
            return spec
        execute = spec.loader.exec_module

        def exec_module(module: Any) -> None:
            execute(module)
            _start_child_watch()

        spec.loader.exec_module = exec_module
        return spec


def _start_child_watch() -> None:
    global _current
    settings = json.loads(os.environ[ENV])
    from contiglint.runtime.watcher import Watch
    watch = Watch(settings.get("files"), library=settings.get("library", ()),
                  modules=settings.get("modules", True),
                  explicit_copies=settings.get("explicit_copies", False),
                  backend=settings.get("backend", "any"),
                  full=settings.get("full", False),
                  stable_steps=settings.get("stable_steps", 5),
                  sample_every=settings.get("sample_every", 20))
    watch.__enter__()
    _current = ChildReports(watch, settings, settings["directory"])
    _install_fork_hooks(_current)
    atexit.register(_write_report)
