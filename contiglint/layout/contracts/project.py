"""The project's learned contracts: the join of every module's summary (`resolve`), what a
flow pass reads of them (`ProjectContracts`), and one module's view (`module_contracts`)."""
from __future__ import annotations

import ast
import hashlib
import json
from dataclasses import dataclass, field, replace
from typing import Optional

from contiglint.catalogue import contracts as catalogue
from contiglint.layout.contracts.records import (
    CHECK_PREFIX, Edge, Evidence, FunctionContract, ModuleSummary, Requirement, stronger,
)
from contiglint.layout.contracts.summary import summarize
from contiglint.layout.syntax.index import ModuleIndex


@dataclass
class ProjectContracts:
    """Resolved contracts of every function of the project, by qualified name."""

    functions: dict[str, FunctionContract] = field(default_factory=dict)
    ops: dict[str, str] = field(default_factory=dict)
    modules: frozenset[str] = frozenset()
    extensions: dict[str, dict[str, bool]] = field(default_factory=dict)  # module -> names
    checkers: frozenset[str] = frozenset()  # qualified names of check functions
    # the summary the project run already made of the module being linted, and the digest of
    # the text it was made from (`text_digest`): reused while the text is the same
    own: Optional[ModuleSummary] = None
    own_digest: str = ""
    # when not None, every answer a flow pass gets from these contracts is written here (see
    # `Asked`): a result linted with stand-in contracts stands if the real ones answer the same
    asked: Optional[dict] = None
    # `digest()`, once computed: the project run's contracts are resolved once, and each
    # file's copy (`with_own`) keeps it instead of serializing every contract again
    digested: str = field(default="", repr=False, compare=False)

    def with_own(self, summary: Optional[ModuleSummary], digest: str) -> "ProjectContracts":
        return replace(self, own=summary, own_digest=digest) if summary is not None else self

    def lookup(self, qualname: str) -> Optional[FunctionContract]:
        if qualname.startswith("torch.ops."):
            impl = self.ops.get(qualname[len("torch.ops."):])
            found = self.functions.get(impl) if impl else None
        else:
            found = self.functions.get(qualname)
        if self.asked is not None:
            self.asked.setdefault(("lookup", qualname), fingerprint(found))
        return found

    def is_compiled_module(self, qualname: str) -> bool:
        """A relative import of a module the project holds no Python file for (`from . import
        _C` next to a built extension), or one named like an extension."""
        found = catalogue.is_extension_name(qualname) or bool(
            self.modules and qualname not in self.modules and
            qualname.rpartition(".")[0] in self.modules)
        if self.asked is not None:
            self.asked.setdefault(("compiled", qualname), fingerprint(found))
        return found

    def names_a_contract(self, names: frozenset[str]) -> bool:
        """Does code that spells `names` (`ModuleIndex.names`) name a function with a
        contract: a part of such a function's qualified name (the function, or its class:
        `Cls.apply` runs `Cls.forward`), here or in the module's own summary (where a call
        to another of its functions may still add one), a known library contract, or a
        custom op (`torch.ops`)? Code that names none calls none: no contract sink is in
        it, whatever its tensors."""
        found = "ops" in names or not KNOWN_NAMES.isdisjoint(names) or \
            not names.isdisjoint(_contract_names(self.functions, self.own, self.modules))
        if self.asked is not None:
            self.asked.setdefault(("names", " ".join(sorted(names))), fingerprint(found))
        return found

    def passed_on_by(self, summaries: list[ModuleSummary]) -> list[int]:
        """The positions of the partial summaries (evidence.py) whose code names a function
        with a requirement, or a custom op while the project defines one: a function there may
        pass a parameter on to it, so its summary must be made whole. Also those made from
        the text alone that may define a function a layout check is passed to elsewhere
        (`<check>` edges): whether it is a check function needs its syntax."""
        names = _contract_names(self.functions, None, self.modules)
        checks = {edge.target[len(CHECK_PREFIX):] for summary in summaries
                  if not summary.partial for contract in summary.functions.values()
                  for edge in contract.edges if edge.target.startswith(CHECK_PREFIX)}
        return [at for at, summary in enumerate(summaries)
                if summary.partial and (not summary.names.isdisjoint(names) or
                                        bool(self.ops) and "ops" in summary.names or
                                        summary.unparsed and _defines_one(summary, checks))]

    def answers(self, asked: dict) -> bool:
        """Do these contracts give every answer recorded in `asked`?"""
        for (what, name), recorded in asked.items():
            answer = self.lookup(name) if what == "lookup" else \
                self.is_compiled_module(name) if what == "compiled" else \
                self.names_a_contract(frozenset(name.split(" "))) if what == "names" else \
                getattr(self, what).get(name)  # "functions", "extensions"
            if fingerprint(answer) != recorded:
                return False
        return True

    def digest(self) -> str:
        """Changes whenever a contract any caller can see changes (for the result cache).
        Computed once: the contracts are final once resolved (a lint resolves its own
        module's again, which adds nothing to what the whole project's resolution found)."""
        if not self.digested:
            required = {k: f.required_json() for k, f in sorted(self.functions.items())
                        if f.required}
            text = json.dumps([required, sorted(self.ops.items())], sort_keys=True)
            self.digested = hashlib.sha256(text.encode()).hexdigest()
        return self.digested

    def exported(self) -> "ProjectContracts":
        """Only what other modules need: functions with requirements, and the op table."""
        return ProjectContracts({k: f for k, f in self.functions.items() if f.required},
                                dict(self.ops), self.modules, self.extensions, self.checkers)


def _defines_one(summary: ModuleSummary, qualnames: set[str]) -> bool:
    """May the module define one of the functions (a summary made from the text, which knows
    none of its check functions: evidence.py)?"""
    prefix = summary.module + "."
    return any(q.startswith(prefix) and q[len(prefix):] in summary.names for q in qualnames)


# the last parts of the library functions with a known contract (safetensors' `save_file`)
KNOWN_NAMES = frozenset(qualname.rpartition(".")[2] for qualname in catalogue.KNOWN)


def _contract_names(functions: dict[str, FunctionContract], own: Optional[ModuleSummary],
                    modules: frozenset[str] = frozenset()) -> set[str]:
    """The names a call spells of the functions with a requirement (`_called_by`): the
    resolved ones of the project, and those of the module's own summary that have one or
    pass a parameter on to one that does (its requirements as far as the module alone
    shows them: the project's resolution can only add to them, and the first pass's
    answer is asked again with it)."""
    keys = {key for key, contract in functions.items() if contract.required}
    if own is not None:
        required = {key for key, contract in own.functions.items() if contract.required}
        rest = {key: {edge.target for edge in contract.edges}
                for key, contract in own.functions.items() if key not in required}
        grown = True
        while grown:
            reached = {key for key, targets in rest.items() if not targets.isdisjoint(required)}
            grown = bool(reached)
            required |= reached
            for key in reached:
                del rest[key]
        keys |= required
    return {part for key in keys for part in _called_by(key, modules, own)}


def _called_by(key: str, modules: frozenset[str], own: Optional[ModuleSummary]
               ) -> tuple[str, ...]:
    """The names any call of the function `key` spells: a module's function its own name
    (`kernels.fused(x)` spells `fused`; the module's name matches nearly every module of a
    package that imports it), a method its class and its name (`Op.apply`, `x.forward`), a
    constructor its class (`Block(w)`, and a subclass's `super().__init__` names the class
    as its base; `__init__` is spelled by every module that defines a class). `modules`: the
    project's modules, whose functions have no class part."""
    owner, _, name = key.rpartition(".")
    if owner in modules or own is not None and owner == own.module:
        return (name,)
    cls = owner.rpartition(".")[2]
    return (cls,) if name == "__init__" else (cls, name)


class Asked(dict):
    """A table of the contracts whose reads are recorded: `name in table`, `table[name]` and
    `table.get(name)` write the answer to `asked` (what is read, from `ProjectContracts`'s
    field `what`). Only the first answer of each name is kept."""

    def __init__(self, items: dict, asked: dict, what: str) -> None:
        super().__init__(items)
        self.asked, self.what = asked, what

    def _note(self, name) -> None:
        self.asked.setdefault((self.what, name), fingerprint(dict.get(self, name)))

    def __contains__(self, name) -> bool:
        self._note(name)
        return dict.__contains__(self, name)

    def __getitem__(self, name):
        self._note(name)
        return dict.__getitem__(self, name)

    def get(self, name, default=None):
        self._note(name)
        return dict.get(self, name, default)


def fingerprint(answer: object) -> str:
    """A short text equal for equal answers: the reprs of these dataclasses show every field,
    so equal texts mean equal values (a table's order aside, which can only make two equal
    answers look different)."""
    text = repr(sorted(answer.items()) if isinstance(answer, dict) else answer)
    return hashlib.blake2b(text.encode("utf-8", "surrogatepass"), digest_size=12).hexdigest()


def resolve(summaries: list[ModuleSummary]) -> ProjectContracts:
    """Join module summaries: a parameter passed on to a function that requires it is required
    too, until nothing changes (each round adds requirements, so this terminates)."""
    project = ProjectContracts()
    project.modules = frozenset(s.module for s in summaries)
    for summary in summaries:
        project.functions.update(summary.functions)
        for op, impl in summary.ops.items():
            project.ops.setdefault(op, impl)
        project.extensions[summary.module] = dict(summary.extensions)
    project.checkers = frozenset(f"{s.module}.{name}" for s in summaries for name in s.checkers)
    by_module = {s.module: s for s in summaries}
    # An edge's requirement is read from its target's requirements (or from what does not
    # change here: checkers, extensions, the modules). It is computed again only when the
    # target's requirements changed since: then it could be stronger; else it is what it was,
    # and the parameter already holds it (requirements only grow).
    changes: dict[int, int] = {}  # id(contract) -> how often its requirements changed
    # per contract with edges, per edge: its target (None: none read) and the target's count
    # when the edge was last computed (-1: never)
    edges = [(contract, [project.lookup(e.target) if _edge_kind(e) == "callee" else None
                         for e in contract.edges], [-1] * len(contract.edges))
             for contract in project.functions.values() if contract.edges]
    changed = True
    rounds = 0
    while changed and rounds < 20:
        changed, rounds = False, rounds + 1
        for contract, targets, seen in edges:
            for at, edge in enumerate(contract.edges):
                target = targets[at]
                count = changes.get(id(target), 0) if target is not None else 0
                if seen[at] == count:
                    continue
                seen[at] = count
                requirement = _edge_requirement(project, by_module, contract, edge)
                if requirement is None:
                    continue
                old = contract.required.get(edge.param)
                if old is None or stronger(requirement.kind, old.kind) or \
                        (requirement.writes and not old.writes):
                    kind = requirement.kind if old is None or \
                        stronger(requirement.kind, old.kind) else old.kind
                    evidence = requirement.evidence if old is None or \
                        stronger(requirement.kind, old.kind) else old.evidence
                    contract.required[edge.param] = Requirement(
                        kind, evidence, requirement.writes or bool(old and old.writes))
                    changes[id(contract)] = changes.get(id(contract), 0) + 1
                    changed = True
    return project


def _edge_kind(edge: Edge) -> str:
    """What an edge passes its parameter to: a layout checker ("check"), an extension
    function ("extension"), or a function whose contract `_edge_requirement` looks up
    ("callee")."""
    if edge.target.startswith(CHECK_PREFIX):
        return "check"
    return "extension" if edge.target.startswith("<ext>") else "callee"


def _edge_requirement(project: ProjectContracts, by_module: dict[str, ModuleSummary],
                      contract: FunctionContract, edge: Edge) -> Optional[Requirement]:
    path = _path_of(by_module, contract.qualname)
    kind = _edge_kind(edge)
    if kind == "check":
        checker = edge.target[len(CHECK_PREFIX):]
        if checker not in project.checkers:
            return None
        return Requirement(edge.slot, (Evidence(path, edge.line, edge.column, edge.text),))
    here = Evidence(path, edge.line, edge.column, f"passes `{edge.param}` to `{edge.text}`")
    if kind == "extension":
        module = _module_of(by_module, contract.qualname)
        contiguous = project.extensions.get(module, {}).get(edge.target[5:].split(".")[0])
        return Requirement("unknown" if not contiguous else "full", (
            Evidence(path, edge.line, edge.column, f"passes `{edge.param}` to the extension "
                                                   f"function `{edge.text}`"),))
    target = project.lookup(edge.target)
    if target is None and not edge.target.startswith("torch.ops."):
        # a compiled module imported by the project: `from . import _C; _C.fwd(x)`
        owner = edge.target.rpartition(".")[0]
        summary = by_module.get(_module_of(by_module, contract.qualname))
        imported = summary.imported_modules if summary is not None else ()
        if owner and (owner in imported or catalogue.is_extension_name(owner)) and \
                project.is_compiled_module(owner):
            return Requirement("unknown", (here,))
        return None
    if target is None:
        return None
    param = target.param_for(edge.slot, edge.shift)
    requirement = target.required.get(param) if param else None
    if requirement is None or target is contract and param == edge.param:
        return None
    return Requirement(requirement.kind, (here,) + requirement.evidence[:4], requirement.writes)


def _module_of(by_module: dict[str, ModuleSummary], qualname: str) -> str:
    parts = qualname.split(".")
    for end in range(len(parts) - 1, 0, -1):
        candidate = ".".join(parts[:end])
        if candidate in by_module:
            return candidate
    return ""


def _path_of(by_module: dict[str, ModuleSummary], qualname: str) -> str:
    summary = by_module.get(_module_of(by_module, qualname))
    return summary.path if summary else ""


def module_contracts(tree: ast.Module, module: str, path: str, is_package: bool,
                     project: Optional[ProjectContracts],
                     digest_of: str = "",
                     index: Optional[ModuleIndex] = None) -> ProjectContracts:
    """The contracts the flow pass of one module sees: its own, resolved together with those
    the project run computed for the other modules. `digest_of`: the `text_digest` of the
    module's text; the project run's own summary of it (`project.own`) is reused when it was
    made from the same text (a check run), and recomputed otherwise (a fix run's rewrites).
    `index`: the module's shared walk."""
    own = project.own if project is not None and project.own is not None and \
        project.own.module == module and project.own.path == path and \
        project.own_digest == digest_of and not project.own.unparsed else None
    if own is None:
        own = summarize(tree, module, path, is_package, index=index)
    resolved = resolve([own])
    if project is None:
        return resolved
    for key, contract in project.functions.items():
        resolved.functions.setdefault(key, contract)
    for op, impl in project.ops.items():
        resolved.ops.setdefault(op, impl)
    resolved.modules = project.modules | {module}
    resolved.checkers = resolved.checkers | project.checkers
    for name, found in project.extensions.items():
        resolved.extensions.setdefault(name, found)
    by_module = {own.module: own}
    changed, rounds = True, 0
    while changed and rounds < 20:
        changed, rounds = False, rounds + 1
        for key in own.functions:
            contract = resolved.functions[key]
            for edge in contract.edges:
                requirement = _edge_requirement(resolved, by_module, contract, edge)
                old = contract.required.get(edge.param)
                if requirement is not None and (old is None or
                                                stronger(requirement.kind, old.kind)):
                    contract.required[edge.param] = requirement
                    changed = True
    if project.asked is not None:  # the flow pass's reads from here on are recorded
        resolved.asked = project.asked
        resolved.functions = Asked(resolved.functions, project.asked, "functions")
        resolved.extensions = Asked(resolved.extensions, project.asked, "extensions")
    return resolved
