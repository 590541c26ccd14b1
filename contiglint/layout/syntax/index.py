"""One walk of a module, shared by every question asked about its syntax tree.

Walking the tree is a large share of the analysis cost on real code (a module of model code
has tens of thousands of nodes), and the analysis used to walk it several times over: for the
imports, for the calls, once per method for "does it store on `self`?", once per `if` test for
layout checks. `ModuleIndex` walks it once, in `ast.walk`'s order (breadth first, fields in
order), keeping each node's parent, and answers those questions from the lists it built:
by-type node lists and, for the few node kinds the questions look for, the set of their
ancestors ("this subtree holds one").
"""
from __future__ import annotations

import ast
import re
from functools import cached_property
from typing import Optional

from contiglint.catalogue import inplace, ops, sinks
from contiglint.layout.syntax.names import ImportMap, canonical

FunctionNode = (ast.FunctionDef, ast.AsyncFunctionDef)
LAYOUT_QUERIES = sinks.LAYOUT_QUERIES
REGISTRATIONS = sinks.REGISTRATIONS
BUFFER_VIEWS = sinks.BUFFER_VIEWS
COPIES_IF_NEEDED = ops.COPIES_IF_NEEDED
# The names of the collectives (`all_reduce`), which write into the tensors passed to them
COLLECTIVE_NAMES = sinks.function_names("collective")
LOOPS = (ast.For, ast.AsyncFor, ast.While)
SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)


# The node types that can have children, as the grammar (ASDL) names them in each node class's
# docstring: `Attribute(expr value, identifier attr, expr_context ctx)`. Fields of other types
# hold names, constants or childless nodes (contexts, operators, aliases), which no question
# asked here is about, so the walk does not visit them.
_BRANCHING = frozenset({"expr", "stmt", "arguments", "keyword", "withitem", "comprehension",
                        "excepthandler", "match_case", "pattern", "arg", "type_param"})
_SIGNATURE = re.compile(r"\w+\((.*)\)$")
_FIELDS: dict[type, Optional[tuple[str, ...]]] = {}


def _branching_fields(cls: type) -> Optional[tuple[str, ...]]:
    """The fields of `cls` that hold nodes with children; None if its docstring does not say
    (then every field is looked at)."""
    doc = (cls.__doc__ or "").strip()
    if doc == cls.__name__ and not cls._fields:  # `Pass`, `Break`
        return ()
    match = _SIGNATURE.match(doc)
    if match is None:
        return None
    fields = []
    for part in filter(None, (p.strip() for p in match[1].split(","))):
        words = part.split()
        if len(words) != 2 or words[1] not in cls._fields:
            return None
        if words[0].rstrip("?*") in _BRANCHING:
            fields.append(words[1])
    return tuple(fields)


def walk(tree: ast.AST) -> tuple[list[ast.AST], list[int]]:
    """The nodes of `tree` that can have children, in `ast.walk` order (breadth first, fields
    in order; the childless ones left out do not change the order of the others), and each
    one's parent (its index; -1 for the root)."""
    nodes: list[ast.AST] = [tree]
    parents: list[int] = [-1]
    append, extend = nodes.append, nodes.extend
    add_parent, add_parents = parents.append, parents.extend
    known = _FIELDS
    index = 0
    for node in nodes:  # grows while it is read: breadth first, like ast.walk
        cls = node.__class__
        try:
            fields = known[cls]
        except KeyError:
            fields = known[cls] = _branching_fields(cls)
        if fields is None:  # not described: every child, as ast.iter_child_nodes finds them
            children = list(ast.iter_child_nodes(node))
            extend(children)
            add_parents([index] * len(children))
        else:
            for name in fields:
                value = getattr(node, name, None)
                if value is None:
                    continue
                if value.__class__ is list:
                    if value:
                        if None in value:  # dict keys of `**x`, missing kw-only defaults
                            value = [item for item in value if item is not None]
                        extend(value)
                        add_parents([index] * len(value))
                else:
                    append(value)
                    add_parent(index)
        index += 1
    return nodes, parents


def child_nodes(node: ast.AST) -> list[ast.AST]:
    """The children of `node` that can have children, in `ast.iter_child_nodes` order."""
    cls = node.__class__
    try:
        fields = _FIELDS[cls]
    except KeyError:
        fields = _FIELDS[cls] = _branching_fields(cls)
    if fields is None:
        return list(ast.iter_child_nodes(node))
    children: list[ast.AST] = []
    for name in fields:
        value = getattr(node, name, None)
        if value is None:
            continue
        if value.__class__ is list:
            children.extend(item for item in value if item is not None)
        else:
            children.append(value)
    return children


class ModuleIndex:
    """The shared walk of one module (see the module docstring)."""

    def __init__(self, tree: ast.Module) -> None:
        self.nodes, parents = walk(tree)
        self._parents = parents
        self.calls: list[ast.Call] = []
        self.calls_of: dict[str, list[ast.Call]] = {}  # `name(...)` calls by name
        self.imports: list[ast.AST] = []
        self.assigns: list[ast.Assign] = []
        self.bindings: list[ast.AST] = []  # Assign, Import and ImportFrom, in walk order
        self.classes: list[ast.ClassDef] = []
        # (`x.numpy()` call, how its array's raw memory is read: `.numpy().ctypes`); see
        # `raw_buffer`
        self.raw_buffers: list[tuple[ast.Call, str]] = []
        stores, layout_queries, copies = [], [], []
        attributes: set[str] = set()
        keywords: set[Optional[str]] = set()
        for index, node in enumerate(self.nodes):
            kind = type(node)
            if kind is ast.Call:
                self.calls.append(node)
                func = node.func
                if type(func) is ast.Name:
                    self.calls_of.setdefault(func.id, []).append(node)
                elif type(func) is ast.Attribute:
                    if func.attr in REGISTRATIONS:
                        stores.append(index)
                    elif func.attr in LAYOUT_QUERIES:
                        layout_queries.append(index)
                    elif func.attr in COPIES_IF_NEEDED:
                        copies.append(index)
            elif kind is ast.Attribute:
                attributes.add(node.attr)
                if type(node.ctx) is ast.Store and type(node.value) is ast.Name \
                        and node.value.id == "self":
                    stores.append(index)
                elif node.attr in BUFFER_VIEWS and type(node.value) is ast.Call and \
                        type(node.value.func) is ast.Attribute and \
                        node.value.func.attr == "numpy":
                    self.raw_buffers.append((node.value, f".numpy().{node.attr}"))
            elif kind is ast.Assign:
                self.assigns.append(node)
                self.bindings.append(node)
            elif kind is ast.Import or kind is ast.ImportFrom:
                self.imports.append(node)
                self.bindings.append(node)
            elif kind is ast.ClassDef:
                self.classes.append(node)
            elif kind is ast.keyword:
                keywords.add(node.arg)
        self._attributes = attributes
        self.keywords = keywords  # the names of the keyword arguments of the module's calls
        self._storing = self._ancestors(stores, parents)
        self._querying = self._ancestors(layout_queries, parents)
        spines = [self._written_spine(i, parents) for i in copies]
        self._copy_written = "write" in spines
        self._copy_passed = "argument" in spines
        self.contiguous_in_loop = any(
            self.nodes[i].func.attr == "contiguous" and self._in_loop(i, parents)
            for i in copies)

    @cached_property
    def _numbers(self) -> dict[int, int]:
        """id(node) -> the node's number, its position in `nodes`. The index holds every node
        it numbers, so no id in this table can be another node's while the table lives."""
        return {id(node): number for number, node in enumerate(self.nodes)}

    def raw_buffer(self, call: ast.Call) -> Optional[str]:
        """How the array of a `x.numpy()` call has its raw memory read (`.numpy().ctypes`),
        or None (few modules have any)."""
        return next((text for node, text in self.raw_buffers if node is call), None)

    def number(self, node: ast.AST) -> Optional[int]:
        """The node's number in this module (its position in `nodes`, the same in every
        walk of the same tree); None for a node the index does not hold (a context, an
        operator, an alias, or a node of another tree)."""
        return self._numbers.get(id(node))

    def parent(self, node: ast.AST) -> Optional[ast.AST]:
        """The node whose field holds `node`; None for the module and for a node the index
        does not hold."""
        number = self._numbers.get(id(node))
        if number is None or self._parents[number] < 0:
            return None
        return self.nodes[self._parents[number]]

    def _ancestors(self, indices: list[int], parents: list[int]) -> set[int]:
        """ids of the nodes at `indices` and of all their ancestors."""
        found: set[int] = set()
        nodes = self.nodes
        for index in indices:
            while index >= 0 and id(nodes[index]) not in found:
                found.add(id(nodes[index]))
                index = parents[index]
        return found

    @property
    def may_write_into_copy(self) -> bool:
        """May an in-place write's target, or a write's argument, hold a copy-if-needed call
        (`x.contiguous()`, `x.reshape(..)`) on its receiver spine (the chain of calls,
        attributes and subscripts `SinkRecorder.copied_from` walks down from a write's
        target)? Only then can a write into a temporary copy be recorded (CTG111)."""
        return self._copy_written or (self._copy_passed and self.may_write_arguments)

    @cached_property
    def may_write_arguments(self) -> bool:
        """May a call in the module write into a tensor passed to it? The flow pass's writes
        into an argument are those of
        - an activation called with `inplace=True`, or a module built with it: a keyword
          argument of the code;
        - a collective (`may_call_collective`);
        - a torch function spelled like an in-place Tensor method (`torch.relu_`): the code
          names it through torch (`torch.relu_`, `from torch import relu_`), or hands torch
          itself on (`lib = torch`), which may reach any of them. An in-place method of a
          tensor (`w.normal_()`) or of another module (`nn.init.normal_(w)`) writes its
          receiver or nothing the flow pass knows of."""
        return "inplace" in self.keywords or self.may_call_collective or \
            self._names_torch_inplace_function()

    @cached_property
    def may_call_collective(self) -> bool:
        """May the module call a collective (`torch.distributed.all_reduce`)? Its qualified
        name goes through `torch.distributed`: the code names `distributed` and the
        collective in its dotted names (`dotted_names`)."""
        names = self.dotted_names
        return "distributed" in names and not COLLECTIVE_NAMES.isdisjoint(names)

    def _names_torch_inplace_function(self) -> bool:
        """Does the code name a function of torch's spelled like an in-place method
        (`torch.relu_`, `from torch import relu_`), or torch itself other than through its
        attributes (see `may_write_arguments`)?"""
        modules = set()  # the names the imports bind to torch itself
        for name, target in self.import_map.aliases.items():
            qualname = canonical(target)
            if qualname == "torch":
                modules.add(name)
            elif qualname.startswith("torch.") and qualname.count(".") == 1 and \
                    inplace.is_inplace(qualname[6:]):
                return True
        if not modules:
            return False
        named = attributed = 0
        for node in self.nodes:
            kind = node.__class__
            if kind is ast.Name:
                named += node.id in modules
            elif kind is ast.Attribute:
                value = node.value
                if value.__class__ is ast.Name and value.id in modules:
                    attributed += 1
                    if inplace.is_inplace(node.attr) or \
                            canonical(f"torch.{node.attr}") == "torch":  # torch.functional
                        return True
        return named > attributed  # `lib = torch`: torch itself is handed on

    def _in_loop(self, index: int, parents: list[int]) -> bool:
        """Is the node at `index` inside a `for` or `while` loop of its own function (a
        frame's loops are its function's, `Sink.loop`)?"""
        nodes = self.nodes
        index = parents[index]
        while index >= 0:
            kind = nodes[index].__class__
            if kind in LOOPS:
                return True
            if kind in SCOPES:
                return False
            index = parents[index]
        return False

    def _written_spine(self, index: int, parents: list[int]) -> Optional[str]:
        """What happens to the copy-if-needed call at `index`, or the expression that has it
        on its receiver spine: "write" when it reaches a method whose name ends in `_` (every
        in-place Tensor method and dunder), a subscript that is stored into or deleted, the
        target of an augmented assignment, or an `out=` argument; "argument" when it is
        passed to a call otherwise, which may write it only where a call in the module may
        write an argument (`may_write_arguments`); None otherwise (assigned, returned,
        chained into ops that do not write, or starred)."""
        nodes = self.nodes
        node = nodes[index]
        while True:
            index = parents[index]
            if index < 0:
                return None
            parent = nodes[index]
            kind = type(parent)
            if kind is ast.Attribute and parent.value is node:
                if parent.attr.endswith("_"):
                    return "write"
            elif kind is ast.Subscript and parent.value is node:
                if type(parent.ctx) is not ast.Load:
                    return "write"
            elif not (kind is ast.Call and parent.func is node):
                break
            node = parent
        if kind is ast.AugAssign and parent.target is node:
            return "write"
        if kind is ast.keyword:
            return "write" if parent.arg == "out" else "argument"
        return "argument" if kind is ast.Call and node in parent.args else None

    @cached_property
    def import_map(self) -> ImportMap:
        """The module's import map, made from the imports of this walk: one for the syntax
        checks, the flow pass and the rules."""
        return ImportMap(self.nodes[0], self.imports)

    @cached_property
    def dotted_names(self) -> frozenset[str]:
        """Every part of the dotted names the code spells: attributes (`save` of
        `torch.save`) and the parts of the names it imports (`torch` and `distributed` of
        `import torch.distributed as dist`, `save` of `from torch import save as ts`). A
        qualified name that the import map gives an expression (`torch.save` for `ts`) is
        made of them: a call of a catalogue function names its last part here."""
        parts = set(self._attributes)
        for node in self.imports:
            if node.__class__ is ast.ImportFrom and node.module:
                parts.update(node.module.split("."))
            for alias in node.names:
                parts.update(alias.name.split("."))
        return frozenset(parts)

    @cached_property
    def names(self) -> frozenset[str]:
        """Every name the code spells: identifiers, attributes, imported modules and aliases,
        definitions, parameters, keywords (not the text of string literals). Read from the
        index's nodes, which are every node that can have children (a name is a field of one
        of them: `Name.id`, `Attribute.attr`, `arg.arg`, `keyword.arg`), and from the imports'
        aliases, which the index does not walk into."""
        names: set[str] = set()
        add, update = names.add, names.update
        for node in self.nodes:
            if node.__class__ is ast.Name:  # most nodes: the one field that is a name
                add(node.id)
                continue
            if node.__class__ is ast.Constant:
                continue
            for field in node._fields:
                value = getattr(node, field, None)
                if value.__class__ is str:
                    add(value)
                elif value.__class__ is list and value and value[0].__class__ is str:
                    update(value)  # global and nonlocal names, class patterns' attributes
        for node in self.imports:
            for alias in node.names:
                add(alias.name)
                if alias.asname:
                    add(alias.asname)
        return frozenset(names)

    def stores_on_self(self, function: ast.AST) -> bool:
        """Whether a method can change instance state: somewhere inside it (nested code
        included) `self.x = ...` or `.register_buffer(...)` / `.register_parameter(...)`."""
        return id(function) in self._storing

    def queries_layout(self, node: ast.AST) -> bool:
        """Whether a `.is_contiguous(...)` / `.stride(...)` call is `node` or inside it."""
        return id(node) in self._querying
