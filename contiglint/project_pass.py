"""The two passes of a project run, when an enabled rule reads contracts (CTG114).

The first pass makes each module's contract summary (cached by content) and, in a check run,
lints it with stand-in contracts, noting every answer the lint got from them (`FirstPass`);
the summaries are joined into the project's contracts (`project_contracts`). The second pass
keeps a file's first result where the project's contracts give the same answers
(`stands_safely`), and lints it again with them otherwise. The cache keeps each result with
its answers too (`check_file`), so a changed contract relints only the files that read it.
runner.py runs the passes over the files, in workers when they are many.
"""
from __future__ import annotations

import copy
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Optional, Sequence

from contiglint.cache import ANSWERS, Cache
from contiglint.config import Config
from contiglint.engine import (
    LintResult, SourceError, lint_source, needs_tree, parse, reads_contracts, size_error,
)
from contiglint.files import SourceFile
from contiglint.layout.contracts.evidence import from_text, text_may_hold_evidence
from contiglint.layout.contracts.naming import module_name
from contiglint.layout.contracts.project import ProjectContracts, module_contracts, resolve
from contiglint.layout.contracts.records import ModuleSummary
from contiglint.layout.contracts.summary import summarize
from contiglint.layout.syntax.index import ModuleIndex
from contiglint.rules import enabled_rules
from contiglint.prefilter import as_python_reads
from contiglint.segments import segmented
from contiglint.source import text_digest

if TYPE_CHECKING:
    from contiglint.runner import RunOptions


def module_names(files: Sequence[str], config: Config) -> frozenset[str]:
    """Every linted file's module name, also of those that define no function (a package's
    `__init__.py` that only re-exports): the project's Python modules are what tell a
    compiled extension imported next to them apart (`is_compiled_module`). None are needed
    when no enabled rule reads contracts (each name costs a file-system walk up the
    packages)."""
    if not reads_any_contract(config):
        return frozenset()
    return frozenset(module_name(path) for path in files)


def reads_any_contract(config: Config) -> bool:
    """Does an enabled rule read contracts? Per-file settings only ignore more, so no file's
    lint reads them if the run's settings don't."""
    return reads_contracts(enabled_rules(config.settings))


def lazy_summaries(config: Config) -> bool:
    """Does the run make partial summaries (layout/contracts/evidence.py)? Not in strict
    mode, which reports calls of extensions whose contract needs no evidence."""
    return not config.settings.strict


def whole_summary(source: SourceFile, options: RunOptions) -> Optional[ModuleSummary]:
    """The complete summary of a module whose first pass made a partial one (cached by
    content, as the first pass caches its own); None for a text that no longer parses."""
    path, text = source.path, source.text
    module = module_name(path)
    cache = Cache(options.cache_dir) if options.cache_dir is not None else None
    key = cache.summary_key(text, path, module) if cache is not None else ""
    try:
        tree, _ = parse(text, path)
        if tree is None:
            return None
        summary = summarize(tree, module, path, path.endswith("__init__.py"))
    except Exception:  # noqa: BLE001 - a bug in a summary must not stop the run
        return None
    if cache is not None:
        cache.store_summary(key, summary.as_json())
    return summary


def complete(firsts: list, modules: frozenset[str], make_whole
             ) -> Optional[ProjectContracts]:
    """The project's contracts, made whole: each round, the partial summaries whose code
    names a function the contracts so far require are made complete (`make_whole`: their
    positions in `firsts` -> their summaries, None where one cannot be made), until no
    partial summary names one (see evidence.py). The summaries stay in the files' order, so
    the contracts are joined as they would be from every summary made whole."""
    while True:
        project = project_contracts([f.summary for f in firsts if f is not None], modules)
        if project is None:
            return None
        at = [i for i, f in enumerate(firsts) if f is not None and f.summary is not None]
        late = [at[i] for i in project.passed_on_by([firsts[i].summary for i in at])]
        if not late:
            return project
        for i, summary in zip(late, make_whole(late)):
            firsts[i].summary = summary if summary is not None else \
                replace(firsts[i].summary, partial=False)  # it stays as it was


def project_contracts(summaries: list, modules: frozenset[str]) -> Optional[ProjectContracts]:
    found = [s for s in summaries if s is not None]
    if not found:
        return None
    project = resolve(found).exported()
    project.modules = project.modules | modules
    project.digest()  # once, here: every file's copy of the project keeps it
    return project


def per_file(project: Optional[ProjectContracts], firsts: list) -> list:
    """The project's contracts for each file's lint, with the summary the first pass made of
    that file, so that the lint does not summarize it again (outside fix mode: a rewritten
    text no longer matches the digest). A file whose first-pass lint read no contract keeps
    that result whatever the contracts say (`_stands`): it gets only their digest (its cache
    key), not a copy of every contract to send to a worker."""
    if project is None:
        return [None] * len(firsts)
    digest_only = ProjectContracts(digested=project.digest())
    return [digest_only if f is not None and f.result is not None and not f.asked else
            project.with_own(f.summary, f.digest) if f is not None else project
            for f in firsts]


@dataclass
class FirstPass:
    """What the first pass learned of one file: its contract summary (for the project's
    contracts), and, in a check run, the file's result linted with stand-in contracts, which
    know none of the other modules' contracts, and every answer the lint got from them. Once
    the project's contracts are known, that result is the file's result if they give the
    same answers (`second_pass`): the lint reads the contracts through those answers only,
    and is a function of the text and of what it reads. Most files call into no other
    module's contract, so most are parsed and analysed once instead of twice."""

    summary: Optional[ModuleSummary]
    digest: str  # of the text; "" when no enabled rule reads contracts
    result: Optional[LintResult] = None
    asked: Optional[dict] = None
    # the module's own summary where `summary` is None (a text without `def `, which no
    # project holds): the one its lint makes, for checking the answers
    own: Optional[ModuleSummary] = None
    # the file's status before the pass read it, for the cache's stat index (runner.py)
    status: Optional[list[int]] = None


def first_pass(source: SourceFile, config: Config, options: RunOptions,
               modules: frozenset[str]) -> Optional[FirstPass]:
    """The file's contract summary and, in a check run, its speculative result (see
    `FirstPass`); None for a text that cannot be summarized (the lint reports why)."""
    path, text = source.path, source.text
    if size_error(text, path, config.settings_for(path)):
        return None  # never parsed: the lint reports it
    cache = Cache(options.cache_dir) if options.cache_dir is not None else None
    summary, tree, index, parsed = None, None, None, False
    contracts = reads_any_contract(config)
    module = module_name(path) if contracts else ""  # only contracts are named by module
    package = path.endswith("__init__.py")
    # a large text is analysed in segments (segments.py): no summary of the whole
    whole = contracts and not segmented(text)
    lazy = lazy_summaries(config)
    # the digest ties a summary, and a result linted here, to its text: only contracts (and,
    # with a cache, only a text whose summary was made here, so with contracts) need one
    digest = text_digest(text) if contracts else ""
    try:
        if "def " in text and whole:
            key = cache.summary_key(text, path, module) if cache is not None else ""
            cached = cache.load_summary(key) if cache is not None else None
            if cached is not None:
                summary = ModuleSummary.from_json(cached)
            elif lazy and options.mode == "check":
                summary = _from_text(source, config, module, modules, digest)
            if summary is None or summary.partial and not lazy:
                tree, _ = parse(text, path)
                parsed = True
                if tree is not None:
                    index = ModuleIndex(tree)  # one walk for the summary and the lint
                    summary = summarize(tree, module, path, package, index=index, lazy=lazy)
                    if cache is not None:
                        cache.store_summary(key, summary.as_json())
    except Exception:  # noqa: BLE001 - a bug in a summary must not stop the run
        return None
    first = FirstPass(summary, digest)
    # With a cache, only a text whose summary was not cached is linted here: its result
    # cannot be cached either (its key holds the text); a cached one is read in the lint.
    if options.mode != "check" or cache is not None and not parsed:
        return first
    try:
        own = None
        if whole and summary is None:
            if not parsed:
                tree, _ = parse(text, path)
            if tree is not None:
                index = index or ModuleIndex(tree)
                own = summarize(tree, module, path, package, index=index)
        # else the lint parses the text and walks its tree if its prefilter lets it through
        asked: dict = {}
        stand_in = ProjectContracts(modules=modules, asked=asked)
        if summary is not None or own is not None:  # the lint changes it: it gets a copy
            stand_in = stand_in.with_own(_copy(summary or own), first.digest)
        result = check_file(source, config.settings_for(path), options, stand_in, tree, index,
                        store=False)
    except Exception:  # noqa: BLE001 - the lint runs again, and reports it
        return first
    first.result, first.asked, first.own = result, asked, own
    return first


def _from_text(source: SourceFile, config: Config, module: str, modules: frozenset[str],
               digest: str) -> Optional[ModuleSummary]:
    """The module's partial summary made from its text, where the text shows no evidence and
    its lint needs no syntax tree (layout/contracts/evidence.py); else None: it is parsed."""
    path, text = source.path, source.text
    searched = as_python_reads(text)
    if text_may_hold_evidence(searched):
        return None
    summary = from_text(module, path, searched)
    stand_in = ProjectContracts(modules=modules).with_own(summary, digest)
    return None if needs_tree(text, config.settings_for(path), stand_in) else summary


def stands_safely(path: str, project: Optional[ProjectContracts], first: FirstPass) -> bool:
    try:
        return _stands(path, project, first)
    except Exception:  # noqa: BLE001 - a bug here costs a second lint, never a result
        return False


def _stands(path: str, project: Optional[ProjectContracts], first: FirstPass) -> bool:
    """Do the contracts the file's lint would get from `project` (`module_contracts`, as
    the flow pass calls it) answer what its first-pass lint asked, the same way?"""
    if not first.asked:
        return True  # it read no contract (the prefilter or a syntax error stopped it)
    own = first.own if first.own is not None else project.own if project is not None \
        else None
    if own is None or own.unparsed:
        # a module of no function, or one whose summary was made from its text: its lint
        # asked only whether its names name a contract, unless it was parsed elsewhere
        if all(what == "names" for what, _ in first.asked):
            return (project or ProjectContracts()).answers(first.asked)
        return False
    # module_contracts changes the summary it is given: the lint may still need this one
    own = _copy(own)
    if project is None:  # what module_contracts makes of a module alone
        real = resolve([own])
    else:
        real = module_contracts(None, module_name(path), path, path.endswith("__init__.py"),
                                replace(project, own=own, own_digest=first.digest),
                                first.digest)
    return real.answers(first.asked)


def _copy(summary: ModuleSummary) -> ModuleSummary:
    """A summary whose contracts can change without changing `summary`'s: resolve() and
    module_contracts() change a contract only by setting entries of its `required` table."""
    functions = {}
    for key, contract in summary.functions.items():
        functions[key] = copy.copy(contract)
        functions[key].required = dict(contract.required)
    return replace(summary, functions=functions)


def check_file(source: SourceFile, settings, options: RunOptions,
           project: Optional[ProjectContracts] = None, tree=None, index=None,
           store: bool = True) -> LintResult:
    """`tree`, `index`: the text's syntax tree and its walk, when the caller has them;
    `store`: False to neither read nor write the cache (the first pass's stand-in contracts)."""
    if options.cache_dir is None or not store:
        return lint_source(source.text, source.path, settings, tree, project, index)
    cache = Cache(options.cache_dir)
    key = cache.digest_key(source.text_digest, source.path, settings,
                           project.digest() if project is not None else "")
    result = cache.load(key, source.text)
    if result is not None:
        return result
    if project is None:
        result = lint_source(source.text, source.path, settings, tree, project, index)
        cache.store(key, result)
        return result
    # The project's contracts changed since this text was last linted (or it is new): its
    # result stands if they give every answer its lint got from them (see `FirstPass`), so
    # a changed contract relints only the files that read it.
    answered = cache.digest_key(source.text_digest, source.path, settings, ANSWERS)
    found = cache.load_answered(answered, source.text)
    if found is not None and _answers_stand(source, project, found[1]):
        cache.store(key, found[0])
        return found[0]
    asked: dict = {}
    result = lint_source(source.text, source.path, settings, tree,
                         replace(project, asked=asked), index)
    cache.store(key, result)
    cache.store(answered, result, asked)
    return result


def _answers_stand(source: SourceFile, project: ProjectContracts, asked: dict) -> bool:
    """Do `project`'s contracts give the file's lint the answers `asked` records? The file's
    own summary is the project's copy when made from this text, else made here."""
    own = project.own if project.own is not None and \
        project.own_digest == source.text_digest else None
    if own is None and asked and not segmented(source.text):
        try:
            tree, _ = parse(source.text, source.path)
            if tree is None:
                return False
            own = summarize(tree, module_name(source.path), source.path,
                            source.path.endswith("__init__.py"))
        except Exception:  # noqa: BLE001 - a bug in a summary must not stop the run
            return False
    return stands_safely(source.path, project,
                          FirstPass(None, source.text_digest, asked=asked, own=own))


def keep_first_result(path: str, source, config: Config, options: RunOptions,
                      project: Optional[ProjectContracts], first: FirstPass) -> None:
    """With a cache, the first pass's result, which stands (`second_pass`), is stored as the
    result of the file's text with the project's contracts, and with the answers it got."""
    if not isinstance(source, SourceError) and source.text_digest == first.digest:
        cache, settings = Cache(options.cache_dir), config.settings_for(path)
        cache.store(cache.digest_key(source.text_digest, path, settings,
                                     project.digest() if project is not None else ""),
                    first.result)
        if project is not None:  # answered as the stand-in contracts answered
            cache.store(cache.digest_key(source.text_digest, path, settings, ANSWERS),
                        first.result, first.asked)
