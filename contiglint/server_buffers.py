"""One open buffer as the language server sees it: the result of linting one version of it
(with the observed analysis that hovers and inlay hints read), and what it contributes to the
other buffers (its module name, contract summary and imports)."""
from __future__ import annotations

import ast
import json
import os
from dataclasses import dataclass, field
from typing import Optional

from contiglint import server_layout
from contiglint.config import ConfigError, Overrides, resolve
from contiglint.engine import LintResult, SourceError
from contiglint.findings import line_starts
from contiglint.layout.explain.query import Analysis, analyze
from contiglint.layout.contracts.naming import Names, module_name
from contiglint.layout.contracts.project import ProjectContracts
from contiglint.layout.contracts.project import resolve as resolve_contracts
from contiglint.layout.contracts.records import ModuleSummary
from contiglint.layout.contracts.summary import summarize


@dataclass
class Linted:
    """The result for one version of one buffer, with the text it was computed on."""

    version: Optional[int]
    text: str
    result: LintResult
    settings: object = None
    starts: list[int] = field(default_factory=list)
    contracts: str = ""  # digest of what the buffer's functions require (for its importers)
    analysis: Optional[Analysis] = None  # what hovers and inlay hints read


@dataclass
class Module:
    """What one open buffer contributes to the others: its contract summary, and the
    modules it imports."""

    name: str
    summary: Optional[ModuleSummary]
    imports: frozenset[str]


def lint_buffer(path: str, text: str, version: Optional[int],
                project: Optional[ProjectContracts] = None) -> Linted:
    """What `contiglint PATH` reports for `text` saved at `path` (runs in the worker thread);
    `project`: the contracts of the other modules linted with it."""
    try:
        config = resolve(Overrides(), None, os.path.dirname(path) or ".")
        settings = config.settings_for(path)
        analysis = analyze(text, path, settings, project)
        server_layout.warm(analysis)
        result = analysis.result
    except ConfigError as error:
        settings, analysis, result = None, None, LintResult(errors=[SourceError(
            path, 1, 1, str(error), "config")])
    except Exception as error:  # noqa: BLE001 - the server reports its bugs, it never dies
        settings, analysis, result = None, None, LintResult(errors=[SourceError(
            path, 1, 1, f"internal error: {type(error).__name__}: {error}; please report this "
            "bug with the file that caused it", "internal")])
    return Linted(version, text, result, settings, line_starts(text), analysis=analysis)


def buffer_module(path: str, text: str) -> Module:
    """The buffer's module name, contract summary (None when it does not parse) and the
    modules it imports (relative imports resolved)."""
    name = module_name(path)
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError, RecursionError):
        return Module(name, None, frozenset())
    package = path.endswith("__init__.py")
    try:
        summary = summarize(tree, name, path, package)
    except (RecursionError, ValueError):
        summary = None
    imports = set(Names(tree, name, package).local.values())
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            imports.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and not node.level and node.module:
            imports.add(node.module)
    return Module(name, summary, frozenset(imports))


def contracts_digest(module: Module, others: list[ModuleSummary]) -> str:
    """What the module's functions require, resolved with the other open modules (so that a
    wrapper's contract changes when the kernel it calls changes)."""
    if module.summary is None:
        return ""
    resolved = resolve_contracts(others + [module.summary])
    required = {key: resolved.functions[key].as_json()["required"]
                for key in sorted(module.summary.functions)
                if key in resolved.functions and resolved.functions[key].required}
    return json.dumps(required, sort_keys=True) if required else ""
