"""A warm check run's answers from the cache's stat index (cache.py, `StatIndex`), without
reading the files whose status is unchanged.

When no enabled rule reads contracts, each file's result depends on its text alone: a file
whose status is the one the index noted with its text's digest is answered from the cache
(`answered`). When one does (CTG114, a default rule), a file's result depends on the project's
contracts too, which every file's text makes: the run is answered only when every file's
status is unchanged and the run lints the same files with the same settings as a run the
index noted, whose contracts' digest is then known without reading anything
(`answered_project`). Any other project run reads every file, and notes what it saw for the
next (`note_project`).
"""
from __future__ import annotations

import hashlib
import os
from typing import TYPE_CHECKING, Optional, Sequence

from contiglint.cache import Cache, StatIndex
from contiglint.config import Config
from contiglint.engine import LintResult
from contiglint.files import stat_signature
from contiglint.outcomes import FileOutcome

if TYPE_CHECKING:
    from contiglint.runner import RunOptions


def stat_index(options: RunOptions) -> Optional[StatIndex]:
    """The cache's stat index, for a check run with a cache."""
    if options.mode != "check" or options.cache_dir is None:
        return None
    return Cache(options.cache_dir).stat_index()


def signature(path: str) -> Optional[list[int]]:
    try:
        return stat_signature(os.stat(path))
    except OSError:
        return None  # reading it reports why


def answered(path: str, config: Config, options: RunOptions,
             index: StatIndex) -> Optional[FileOutcome]:
    """The cached outcome of a file whose status is the one the stat index noted with its
    text's digest: the file is not read. None when it must be read and linted."""
    absolute, status = os.path.abspath(path), signature(path)
    found = index.lookup(absolute, status)
    if found is None:
        return None
    digest, clean = found
    key = Cache.digest_key(digest, path, config.settings_for(path))
    outcome = _cached(Cache(options.cache_dir), path, key, clean)
    if outcome is not None and key != clean:
        index.met(absolute, status, digest, key, _result(outcome))
    return outcome


def answered_project(files: Sequence[str], config: Config, options: RunOptions,
                     index: StatIndex) -> Optional[list[FileOutcome]]:
    """Every file's cached outcome, when each file's status is the one the index noted and
    the index noted a run of these files, with these texts and settings (`_run_key`): its
    contracts were made of the same texts, so each result linted with them is this run's.
    None when anything must be read."""
    cache = Cache(options.cache_dir)
    known = []
    for path in files:
        found = index.lookup(os.path.abspath(path), signature(path))
        if found is None:
            return None
        known.append((path, found[0], found[1]))
    contracts = index.project(_run_key(cache, config, [(p, d) for p, d, _ in known]))
    if contracts is None:
        return None
    outcomes = []
    for path, digest, clean in known:
        outcome = _cached(cache, path, cache.digest_key(digest, path, config.settings_for(path),
                                                        contracts), clean)
        if outcome is None:
            return None
        outcomes.append(outcome)
    return outcomes


def _cached(cache: Cache, path: str, key: str, clean: str) -> Optional[FileOutcome]:
    """The outcome stored under `key`: none to load where the index noted it clean."""
    if key == clean:
        return FileOutcome(path)
    result = cache.load(key, None)
    if result is None:
        return None
    return FileOutcome(path, findings=result.findings, errors=result.errors)


def note_files(outcomes: Sequence[FileOutcome], config: Config, index: StatIndex) -> None:
    """What a run saw of each file it read (`FileOutcome.seen`), with the key of its result
    (under the contracts it was linted with, `FileOutcome.contracts`)."""
    for outcome in outcomes:
        if outcome.seen is not None:
            absolute, status, digest = outcome.seen
            key = Cache.digest_key(digest, outcome.path, config.settings_for(outcome.path),
                                   outcome.contracts)
            index.met(absolute, status, digest, key, _result(outcome))


def note_project(outcomes: Sequence[FileOutcome], config: Config, options: RunOptions,
                 index: StatIndex) -> None:
    """What a project run saw of each file (`note_files`), and, when it saw every file, the
    run itself (its key -> the contracts' digest)."""
    cache = Cache(options.cache_dir)
    note_files(outcomes, config, index)
    if outcomes and all(o.seen is not None for o in outcomes) and \
            len({o.contracts for o in outcomes}) == 1:
        run = _run_key(cache, config, [(o.path, o.seen[2]) for o in outcomes])
        index.ran_project(run, outcomes[0].contracts)


def _result(outcome: FileOutcome) -> LintResult:
    return LintResult(outcome.findings, outcome.errors)


def _run_key(cache: Cache, config: Config, texts: list[tuple[str, str]]) -> str:
    """The run of these files (path, text digest), each with its settings."""
    keys = sorted(os.path.abspath(path) + "\0" +
                  cache.digest_key(digest, path, config.settings_for(path))
                  for path, digest in texts)
    return hashlib.blake2b("\n".join(keys).encode("utf-8", "surrogatepass"),
                           digest_size=16).hexdigest()
