"""Lint, fix or diff many files: read, prefilter, cache, analyze, in parallel when it pays.

Results come back in discovery order (sorted paths) whatever the number of workers, so output
is deterministic. Each worker reads its own files, so I/O is parallel too. A file whose text
cannot contain any sink (`may_have_findings`) is only parsed, to report a syntax error, and
never analysed; the cache remembers that result too, so a warm run does not parse it again.
"""
from __future__ import annotations

import functools
import gc
import os
import signal
from contextlib import contextmanager
from dataclasses import dataclass, replace
from typing import Callable, Optional, Sequence, TypeVar

from contiglint.cache import Cache
from contiglint.config import Config
from contiglint.engine import SourceError, fix_source, lint_source
from contiglint.discovery import discover
from contiglint.files import SourceFile, read_source, write_source
from contiglint.findings import unified_diff
from contiglint.layout.contracts.project import ProjectContracts
from contiglint.layout.contracts.records import ModuleSummary
from contiglint.outcomes import FileOutcome, Progress, RunResult
from contiglint.stat_answers import (
    answered, answered_project, note_files, note_project, signature, stat_index,
)
from contiglint.prefilter import may_have_findings
from contiglint.project_pass import (
    FirstPass, check_file, first_pass, keep_first_result, module_names, per_file,
    complete, reads_any_contract, stands_safely, whole_summary,
)

T = TypeVar("T")
SERIAL_BELOW = 8  # fewer files than this: starting workers costs more than it saves


@dataclass(frozen=True)
class RunOptions:
    mode: str = "check"  # "check" | "fix" (write fixes) | "diff" (show fixes, write nothing)
    unsafe_fixes: bool = False
    jobs: int = 0  # 0: one worker per core
    cache_dir: Optional[str] = None  # None: no cache


def run(paths: Sequence[str], config: Config, options: RunOptions,
        progress: Optional[Progress] = None) -> RunResult:
    walks = Cache(options.cache_dir).walk_index() if options.cache_dir is not None else None
    files, errors = discover(paths, config.exclude, config.extend_exclude, config.root,
                             config.respect_gitignore, walks)
    if walks is not None:
        walks.write()
    with batch_gc():
        return RunResult(process_files(files, config, options, progress), errors)


# The analysis allocates millions of short-lived objects (syntax trees, abstract values) that
# reference counting frees, and few reference cycles (a file's frames and the program they run
# in). At Python's default thresholds the cyclic collector still runs thousands of times per
# run: measured at ~12% of a cold run's CPU. Fewer collections change no result, only when
# cyclic garbage is freed. (10_000, 10, 10) still cost 0.7% of a cold run's instructions more
# than these.
GC_THRESHOLDS = (50_000, 20, 100)


@contextmanager
def batch_gc():
    """Collect cyclic garbage less often while a batch of files is processed; what each file
    leaves alive is frozen meanwhile (`one_file`), and given back to the collector after."""
    global _freezing
    before, was = gc.get_threshold(), _freezing
    gc.set_threshold(*GC_THRESHOLDS)
    _freezing = True
    try:
        yield
    finally:
        _freezing = was
        gc.set_threshold(*before)
        if not was:
            gc.unfreeze()


_freezing = False  # within a batch (`batch_gc`) or in a worker: `one_file` freezes


def one_file(process: Callable[..., T]) -> Callable[..., T]:
    """A step that handles one file, after which its cyclic garbage is collected and what it
    leaves alive (its outcome, its summary for the second pass) is frozen: no later collection
    scans it again. Without this, each full collection scans every summary and result held
    so far, and a file's garbage cycles wait for one: a serial run over the bench corpus
    peaked at 194 MB and spent 5-20% more CPU (measured against 133 MB)."""
    @functools.wraps(process)
    def step(*args, **kwargs) -> T:
        try:
            return process(*args, **kwargs)
        finally:
            if _freezing:
                gc.collect()
                gc.freeze()
    return step


def process_files(files: Sequence[str], config: Config, options: RunOptions,
                  progress: Optional[Progress] = None) -> list[FileOutcome]:
    """Two passes over the same workers: first the contract summary of every module (cached
    by content), joined into the project's contracts; then each file's result with them, so
    a call into another module is judged by what the callee requires (CTG114). In a check
    run the first pass also lints each file with stand-in contracts, and the second keeps
    that result where the project's contracts answer the lint the same (`FirstPass`).
    In a check run with a cache, such a run whose files the cache's stat index knows, all
    unchanged, is answered from the cache (stat_answers.py). When no enabled rule reads
    contracts, there is one pass: each file is linted on its own; with a cache, a file whose
    text the stat index knows is answered here first, and only the others are linted (by
    workers when they are many). `progress` hears of each file the last pass finishes."""
    report = progress or (lambda done, total: None)
    index = stat_index(options)
    if index is None:
        return _process(files, config, options, report, note=False)
    if reads_any_contract(config):
        outcomes = answered_project(files, config, options, index)
        if outcomes is not None:
            report(len(files), len(files))
            return outcomes
        outcomes = _process(files, config, options, report, note=True)
        note_project(outcomes, config, options, index)
        index.write()
        return outcomes
    known: dict[str, FileOutcome] = {}
    for path in files:
        outcome = answered(path, config, options, index)
        if outcome is not None:
            known[path] = outcome
            report(len(known), len(files))
    rest = [path for path in files if path not in known]
    done = len(known)
    linted = _process(rest, config, options,
                      lambda count, _: report(done + count, len(files)), note=True)
    note_files(linted, config, index)
    index.write()
    remaining = iter(linted)
    return [known[path] if path in known else next(remaining) for path in files]


def _process(files: Sequence[str], config: Config, options: RunOptions, report: Progress,
             note: bool) -> list[FileOutcome]:
    """`process_files` without the stat index's answers; `note`: each outcome notes what the
    index is to learn of its file (`process_file`)."""
    jobs = options.jobs or os.cpu_count() or 1
    if jobs <= 1 or len(files) < SERIAL_BELOW:
        return _serial(files, config, options, report, note)
    workers = min(jobs, len(files))
    # Small chunks: sorted paths cluster big files (tests, generated code) and one huge
    # chunk would leave the other workers idle at the end.
    chunksize = max(1, min(16, len(files) // (workers * 16)))
    modules = module_names(files, config)
    # imported only here: a warm run that the stat index answers starts no worker
    from concurrent.futures import ProcessPoolExecutor
    from concurrent.futures.process import BrokenProcessPool

    try:
        pool = ProcessPoolExecutor(workers, initializer=_init_worker,
                                   initargs=(_portable(config), options, modules, note))
    except (OSError, PermissionError):
        return _serial(files, config, options, report, note)
    try:
        if not reads_any_contract(config):  # one pass: each file is linted on its own
            outcomes = []
            for outcome in pool.map(_alone_in_worker, files, chunksize=chunksize):
                outcomes.append(outcome)
                report(len(outcomes), len(files))
            pool.shutdown()
            return outcomes
        firsts = list(pool.map(_first_pass_in_worker, files, chunksize=chunksize))
        project = complete(firsts, modules, lambda late: pool.map(
            _whole_in_worker, [files[i] for i in late]))
        outcomes = []
        # the summary travels as the project's `own`: not twice
        lean = [replace(f, summary=None) if f is not None else None for f in firsts]
        for outcome in pool.map(_second_pass_in_worker, files, per_file(project, firsts),
                                lean, chunksize=chunksize):
            outcomes.append(outcome)
            report(len(outcomes), len(files))
        pool.shutdown()
        return _seen(outcomes, firsts, project) if note else outcomes
    except KeyboardInterrupt:
        # Ctrl-C: workers ignore SIGINT (see `_init_worker`), so each finishes the file it
        # holds (a fix is written whole or not at all); queued files are dropped.
        pool.shutdown(wait=True, cancel_futures=True)
        raise
    except (BrokenProcessPool, OSError, PermissionError):
        pool.shutdown(wait=True, cancel_futures=True)
        # No usable process pool here (sandbox, no /dev/shm): the serial path gives the same
        # results. In fix mode a file may already be fixed, which processing again handles.
        return _serial(files, config, options, report, note)


def _serial(files: Sequence[str], config: Config, options: RunOptions,
            report: Progress, note: bool = False) -> list[FileOutcome]:
    """One process. The first pass's texts are not kept for the second (the project's
    texts are many times its summaries and results): a file is read again where the second
    pass lints it again or stores its result, as a worker does."""
    if len(files) <= 1 or not reads_any_contract(config):
        # one file: its own contracts are learned while it is linted; no enabled rule reads
        # contracts: each file is linted on its own
        outcomes = []
        for path in files:
            outcomes.append(process_file(path, config, options, note=note))
            report(len(outcomes), len(files))
        return outcomes
    modules = module_names(files, config)
    firsts = [_first(path, config, options, modules, note) for path in files]
    project = complete(firsts, modules, lambda late: [_whole(files[i], options) for i in late])
    outcomes = []
    for path, own, first in zip(files, per_file(project, firsts), firsts):
        outcomes.append(second_pass(path, None, config, options, own, first))
        report(len(outcomes), len(files))
    return _seen(outcomes, firsts, project) if note else outcomes


def _seen(outcomes: list[FileOutcome], firsts: list, project: Optional[ProjectContracts]
          ) -> list[FileOutcome]:
    """A project run's outcomes, noting for the stat index each file's status before the
    first pass read it, its text's digest and the contracts' digest (`FileOutcome.seen`)."""
    contracts = project.digest() if project is not None else ""
    for outcome, first in zip(outcomes, firsts):
        if first is not None and first.status is not None and first.digest:
            outcome.seen = (os.path.abspath(outcome.path), first.status, first.digest)
            outcome.contracts = contracts
    return outcomes


def _read(path: str, options: RunOptions):
    try:
        return read_source(path, digest=options.mode == "fix")  # only a fix writes
    except Exception as error:  # noqa: BLE001 - reported by the lint phase
        return _internal_error(path, error)


@one_file
def second_pass(path: str, source, config: Config, options: RunOptions,
                project: Optional[ProjectContracts], first: Optional[FirstPass]
                ) -> FileOutcome:
    """The file's outcome: the first pass's result where the project's contracts give the
    answers its lint got (see `FirstPass`), else a lint with them."""
    if first is None or first.result is None or not stands_safely(path, project, first):
        return process_read(path, _read(path, options) if source is None else source, config,
                            options, project)
    if options.cache_dir is not None:
        if source is None:
            source = _read(path, options)
        keep_first_result(path, source, config, options, project, first)
    return FileOutcome(path, findings=first.result.findings, errors=first.result.errors)


_worker_state: Optional[tuple[Config, RunOptions, frozenset[str], bool]] = None


def _init_worker(config: Config, options: RunOptions, modules: frozenset[str],
                 note: bool = False) -> None:
    global _worker_state, _freezing
    # Ctrl-C reaches the whole process group. The parent handles it and cancels what is
    # queued; a worker interrupted inside a write could otherwise lose its temporary file's
    # name between `mkstemp` and the cleanup.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    _worker_state = (config, options, modules, note)
    _freezing = True
    gc.freeze()  # what the worker imported lives as long as it does: never scanned again
    gc.set_threshold(*GC_THRESHOLDS)


def _first_pass_in_worker(path: str) -> Optional[FirstPass]:
    assert _worker_state is not None
    config, options, modules, note = _worker_state
    return _first(path, config, options, modules, note)


def _whole_in_worker(path: str) -> Optional[ModuleSummary]:
    assert _worker_state is not None
    return _whole(path, _worker_state[1])


@one_file
def _whole(path: str, options: RunOptions) -> Optional[ModuleSummary]:
    """The file's whole summary, read again (`project_pass.complete`)."""
    source = _read(path, options)
    return None if isinstance(source, SourceError) else whole_summary(source, options)


@one_file
def _first(path: str, config: Config, options: RunOptions, modules: frozenset[str],
           note: bool) -> Optional[FirstPass]:
    """The file's first pass (None where it cannot be read: the lint reports why); `note`:
    the pass notes the file's status before the text was read, for the stat index."""
    status = signature(path) if note else None
    source = _read(path, options)
    if isinstance(source, SourceError):
        return None
    first = first_pass(source, config, options, modules)
    if first is not None:
        first.status = status
    return first


def _alone_in_worker(path: str) -> FileOutcome:
    assert _worker_state is not None
    config, options, _, note = _worker_state
    return process_file(path, config, options, note=note)


def _second_pass_in_worker(path: str, project: Optional[ProjectContracts],
                           first: Optional[FirstPass]) -> FileOutcome:
    assert _worker_state is not None
    config, options, _, _ = _worker_state
    return second_pass(path, None, config, options, project, first)


def _portable(config: Config) -> Config:
    """A picklable copy: rule options as plain dicts instead of read-only proxies."""
    options = {code: dict(values) for code, values in config.settings.rule_options.items()}
    return replace(config, settings=replace(config.settings, rule_options=options))


@one_file
def process_file(path: str, config: Config, options: RunOptions,
                 project: Optional[ProjectContracts] = None,
                 note: bool = False) -> FileOutcome:
    """`note`: in a check run with a cache whose files are each linted on their own, the
    outcome notes the file's status before it was read and its text's digest, for the cache's
    stat index (`FileOutcome.seen`)."""
    if not note:
        return process_read(path, _read(path, options), config, options, project)
    status = signature(path)
    source = _read(path, options)
    outcome = process_read(path, source, config, options, project)
    if status is not None and isinstance(source, SourceFile):
        outcome.seen = (os.path.abspath(path), status, source.text_digest)
    return outcome


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
        result = check_file(source, settings, options, project)
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
        if error:  # the file stays as it was: so do its findings
            unfixed = lint_source(source.text, source.path, settings, project=project)
            outcome = FileOutcome(source.path, unfixed.findings, unfixed.errors + [error])
    return outcome
