"""Lint, fix or diff many files: read, prefilter, cache, analyze, in parallel when it pays.

Results come back in discovery order (sorted paths) whatever the number of workers, so output
is deterministic. Each worker reads its own files, so I/O is parallel too. A file whose text
cannot contain any sink (`may_have_findings`) is only parsed, to report a syntax error, and
never analysed; the cache remembers that result too, so a warm run does not parse it again.
"""
from __future__ import annotations

import difflib
import gc
import os
import signal
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from typing import Callable, Optional, Sequence

from contiglint.cache import Cache
from contiglint.config import Config
from contiglint.engine import (
    LintResult, SourceError, fix_source, lint_source, may_have_findings, parse,
)
from contiglint.files import SourceFile, discover, read_source, write_source
from contiglint.findings import Finding
from contiglint.layout.sinks.contracts import (
    ModuleSummary, ProjectContracts, module_name, resolve, summarize, text_digest,
)

SERIAL_BELOW = 8  # fewer files than this: starting workers costs more than it saves


@dataclass(frozen=True)
class RunOptions:
    mode: str = "check"  # "check" | "fix" (write fixes) | "diff" (show fixes, write nothing)
    unsafe_fixes: bool = False
    jobs: int = 0  # 0: one worker per core
    cache_dir: Optional[str] = None  # None: no cache


@dataclass
class FileOutcome:
    path: str
    findings: list[Finding] = field(default_factory=list)
    errors: list[SourceError] = field(default_factory=list)
    fixed: int = 0  # fixes applied (fix mode) or that would be applied (diff mode)
    fixes: list[Finding] = field(default_factory=list)  # the findings those fixes resolved
    diff: str = ""
    text: Optional[str] = None  # the fixed text, for stdin in fix mode


@dataclass
class RunResult:
    outcomes: list[FileOutcome] = field(default_factory=list)
    errors: list[SourceError] = field(default_factory=list)  # discovery problems

    @property
    def findings(self) -> list[Finding]:
        return [f for outcome in self.outcomes for f in outcome.findings]

    @property
    def all_errors(self) -> list[SourceError]:
        errors = self.errors + [e for outcome in self.outcomes for e in outcome.errors]
        return sorted(errors, key=lambda e: (e.path, e.line, e.column))

    @property
    def fixed(self) -> int:
        return sum(outcome.fixed for outcome in self.outcomes)

    @property
    def applied_fixes(self) -> list[Finding]:
        return [f for outcome in self.outcomes for f in outcome.fixes]

    @property
    def changed_files(self) -> int:
        return sum(1 for outcome in self.outcomes if outcome.fixed)


Progress = Callable[[int, int], None]  # (files done, files in all)


def run(paths: Sequence[str], config: Config, options: RunOptions,
        progress: Optional[Progress] = None) -> RunResult:
    files, errors = discover(paths, config.exclude, config.extend_exclude, config.root,
                             config.respect_gitignore)
    with batch_gc():
        return RunResult(process_files(files, config, options, progress), errors)


# The analysis allocates millions of short-lived objects (syntax trees, abstract values) that
# reference counting frees, and almost no reference cycles. At Python's default thresholds the
# cyclic collector still runs thousands of times per run, and each full collection scans
# everything alive (every module's contract summary, in the serial path): measured at ~12% of
# a cold run's CPU. Fewer collections change no result, only when cyclic garbage is freed.
GC_THRESHOLDS = (10_000, 10, 10)


@contextmanager
def batch_gc():
    """Collect cyclic garbage less often while a batch of files is processed."""
    before = gc.get_threshold()
    gc.set_threshold(*GC_THRESHOLDS)
    try:
        yield
    finally:
        gc.set_threshold(*before)


def process_files(files: Sequence[str], config: Config, options: RunOptions,
                  progress: Optional[Progress] = None) -> list[FileOutcome]:
    """Two phases over the same workers: first the contract summary of every module (cached
    by content), joined into the project's contracts; then each file is linted with them, so
    a call into another module is judged by what the callee requires (CTG114). `progress`
    hears of each file the second phase finishes."""
    report = progress or (lambda done, total: None)
    jobs = options.jobs or os.cpu_count() or 1
    if jobs <= 1 or len(files) < SERIAL_BELOW:
        return _serial(files, config, options, report)
    workers = min(jobs, len(files))
    # Small chunks: sorted paths cluster big files (tests, generated code) and one huge
    # chunk would leave the other workers idle at the end.
    chunksize = max(1, min(16, len(files) // (workers * 16)))
    try:
        pool = ProcessPoolExecutor(workers, initializer=_init_worker,
                                   initargs=(_portable(config), options))
    except (OSError, PermissionError):
        return _serial(files, config, options, report)
    try:
        summaries = list(pool.map(_summarize_in_worker, files, chunksize=chunksize))
        project = _project([s for s, _ in filter(None, summaries)], files)
        outcomes = []
        for outcome in pool.map(_process_in_worker, files, _per_file(project, summaries),
                                chunksize=chunksize):
            outcomes.append(outcome)
            report(len(outcomes), len(files))
        pool.shutdown()
        return outcomes
    except KeyboardInterrupt:
        # Ctrl-C: workers ignore SIGINT (see `_init_worker`), so each finishes the file it
        # holds (a fix is written whole or not at all); queued files are dropped.
        pool.shutdown(wait=True, cancel_futures=True)
        raise
    except (BrokenProcessPool, OSError, PermissionError):
        pool.shutdown(wait=True, cancel_futures=True)
        # No usable process pool here (sandbox, no /dev/shm): the serial path gives the same
        # results. In fix mode a file may already be fixed, which processing again handles.
        return _serial(files, config, options, report)


def _serial(files: Sequence[str], config: Config, options: RunOptions,
            report: Progress) -> list[FileOutcome]:
    """One process: each file is read once for both phases."""
    if len(files) <= 1:  # a module's own contracts are learned while it is linted
        sources = summaries = [None] * len(files)
        project = None
    else:
        sources = [_read(path) for path in files]
        summaries = [None if isinstance(s, SourceError) else _digested(s, options)
                     for s in sources]
        project = _project([s for s, _ in filter(None, summaries)], files)
    outcomes = []
    for path, source, own in zip(files, sources, _per_file(project, summaries)):
        outcomes.append(process_read(path, _read(path) if source is None else source, config,
                                     options, own))
        report(len(outcomes), len(files))
    return outcomes


def _project(summaries: list, files: Sequence[str]) -> Optional[ProjectContracts]:
    found = [s for s in summaries if s is not None]
    if not found:
        return None
    project = resolve(found).exported()
    # Every linted file's module name, also of those that define no function (a package's
    # `__init__.py` that only re-exports): the project's Python modules are what tell a
    # compiled extension imported next to them apart (`is_compiled_module`).
    project.modules = project.modules | frozenset(module_name(path) for path in files)
    return project


def _per_file(project: Optional[ProjectContracts], summaries: list) -> list:
    """The project's contracts for each file's lint, with the summary phase 1 made of that
    file, so that the lint phase does not summarize it again (outside fix mode: a rewritten
    text no longer matches the digest)."""
    if project is None:
        return [None] * len(summaries)
    return [project.with_own(*found) if found else project for found in summaries]


def _digested(source: SourceFile, options: RunOptions) -> Optional[tuple]:
    summary = summarize_source(source, options)
    return (summary, text_digest(source.text)) if summary is not None else None


def _read(path: str):
    try:
        return read_source(path)
    except Exception as error:  # noqa: BLE001 - reported by the lint phase
        return _internal_error(path, error)


def summarize_file(path: str, options: RunOptions) -> Optional[ModuleSummary]:
    """The contract summary of one module (None for a file that cannot hold a contract or
    does not parse: the lint phase reports that)."""
    try:
        source = read_source(path)
    except Exception:  # noqa: BLE001 - the lint phase reports it
        return None
    return None if isinstance(source, SourceError) else summarize_source(source, options)


def summarize_source(source: SourceFile, options: RunOptions) -> Optional[ModuleSummary]:
    path = source.path
    try:
        if "def " not in source.text:
            return None
        cache = Cache(options.cache_dir) if options.cache_dir is not None else None
        module = module_name(path)
        key = None
        if cache is not None:
            key = cache.summary_key(source.text, path, module)
            cached = cache.load_summary(key)
            if cached is not None:
                return ModuleSummary.from_json(cached)
        tree, error = parse(source.text, path)
        if error is not None or tree is None:
            return None
        summary = summarize(tree, module, path, path.endswith("__init__.py"))
        if cache is not None and key is not None:
            cache.store_summary(key, summary.as_json())
        return summary
    except (RecursionError, MemoryError, ValueError):
        return None


_worker_state: Optional[tuple[Config, RunOptions]] = None


def _init_worker(config: Config, options: RunOptions) -> None:
    global _worker_state
    # Ctrl-C reaches the whole process group. The parent handles it and cancels what is
    # queued; a worker interrupted inside a write could otherwise lose its temporary file's
    # name between `mkstemp` and the cleanup.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    _worker_state = (config, options)
    gc.freeze()  # what the worker imported lives as long as it does: never scanned again
    gc.set_threshold(*GC_THRESHOLDS)


def _process_in_worker(path: str, project: Optional[ProjectContracts] = None) -> FileOutcome:
    assert _worker_state is not None
    return process_file(path, *_worker_state, project)


def _summarize_in_worker(path: str) -> Optional[tuple]:
    """(summary, digest of the text it was made from), or None."""
    assert _worker_state is not None
    try:
        source = read_source(path)
    except Exception:  # noqa: BLE001 - the lint phase reports it
        return None
    return None if isinstance(source, SourceError) else _digested(source, _worker_state[1])


def _portable(config: Config) -> Config:
    """A picklable copy: rule options as plain dicts instead of read-only proxies."""
    options = {code: dict(values) for code, values in config.settings.rule_options.items()}
    return replace(config, settings=replace(config.settings, rule_options=options))


def process_file(path: str, config: Config, options: RunOptions,
                 project: Optional[ProjectContracts] = None) -> FileOutcome:
    return process_read(path, _read(path), config, options, project)


def process_read(path: str, source, config: Config, options: RunOptions,
                 project: Optional[ProjectContracts] = None) -> FileOutcome:
    """Check or fix a file already read (`source`: its SourceFile, or the SourceError)."""
    if isinstance(source, SourceError):
        return FileOutcome(path, errors=[source])
    try:
        return process_source(source, config, options, write=options.mode == "fix",
                              project=project)
    except Exception as error:  # noqa: BLE001 - a bug met on one file must not stop the run
        return FileOutcome(path, errors=[_internal_error(path, error)])


def _internal_error(path: str, error: Exception) -> SourceError:
    return SourceError(
        path, 1, 1, f"internal error while processing the file: {type(error).__name__}: "
        f"{error}; please report this bug with the file that caused it", "internal")


def process_source(source: SourceFile, config: Config, options: RunOptions,
                   write: bool = False, project: Optional[ProjectContracts] = None
                   ) -> FileOutcome:
    """Check or fix one decoded file; `write` puts a fix back on disk. `project`: the
    contracts of the other linted modules (see `process_files`)."""
    settings = config.settings_for(source.path)
    outcome = FileOutcome(source.path)
    if options.mode == "check":  # text without sink tokens is only parsed (and cached)
        result = _check(source, settings, options, project)
        outcome.findings, outcome.errors = result.findings, result.errors
        return outcome
    if not may_have_findings(source.text, settings):  # nothing to fix: parse only
        outcome.errors = lint_source(source.text, source.path, settings).errors
        return outcome
    fixed = fix_source(source.text, source.path, settings, unsafe=options.unsafe_fixes,
                       project=project)
    outcome.findings, outcome.errors = fixed.result.findings, fixed.result.errors
    if fixed.text == source.text:
        return outcome
    outcome.fixed, outcome.text, outcome.fixes = fixed.applied, fixed.text, fixed.fixed
    if options.mode == "diff":
        outcome.diff = unified_diff(source.path, source.text, fixed.text)
    elif write:
        error = write_source(source, fixed.text)
        if error:
            outcome.fixed, outcome.fixes = 0, []
            outcome.errors.append(error)
    return outcome


def _check(source: SourceFile, settings, options: RunOptions,
           project: Optional[ProjectContracts] = None) -> LintResult:
    if options.cache_dir is None:
        return lint_source(source.text, source.path, settings, project=project)
    cache = Cache(options.cache_dir)
    key = cache.key(source.text, source.path, settings,
                    project.digest() if project is not None else "")
    result = cache.load(key, source.text)
    if result is None:
        result = lint_source(source.text, source.path, settings, project=project)
        cache.store(key, result)
    return result


def unified_diff(path: str, before: str, after: str) -> str:
    lines = []
    for line in difflib.unified_diff(before.splitlines(keepends=True),
                                     after.splitlines(keepends=True),
                                     fromfile=f"a/{path}", tofile=f"b/{path}"):
        lines.append(line if line.endswith(("\n", "\r")) else
                     line + "\n\\ No newline at end of file\n")
    return "".join(lines)
