"""Whole-module analysis: the module's functions and classes, and calls between them.

Most real contiguity bugs cross a function boundary: the transpose is in the caller, the view in
the callee. Calls to the module's own functions, methods and classes are therefore analysed in
context: the callee body runs with the caller's abstract arguments (memoised per argument
values, depth-limited, recursion-safe), so a `.view` inside a helper is judged on the tensor the
caller really passes, and its result flows back. `self.x` state is shared across methods: the
stores of `__init__` and of every other method are joined into one value per attribute. A
memoised result is reused while the shared state its run read (attributes, hooks, closures) has
not changed since; a change to anything else does not make it run again. The module runs first
without recording sinks (to learn the classes' attributes), then recording them; a call of the
first phase that met no sink of a recorded kind is reused in the second too.
"""
from __future__ import annotations

import ast
from typing import Optional

from contiglint.catalogue.contracts import (ARGUMENT_KEEPING_DECORATORS, AUTOGRAD_CONTEXT_METHODS,
                                            forward_takes_context)
from contiglint.layout.syntax.compiled import (
    Kernel, is_jit_kernel, kernel_signature, traced_functions,
)
from contiglint.layout.contracts.naming import Names, function_keys, is_static, module_name
from contiglint.layout.contracts.project import ProjectContracts, module_contracts
from contiglint.layout.contracts.records import FunctionContract
from contiglint.layout.contracts.summary import extension_names
from contiglint.layout.syntax.index import ModuleIndex
from contiglint.layout.sinks.records import CallSite, Sink
from contiglint.layout.model.path_joins import join
from contiglint.layout.model.values import OPAQUE, Instance, Ref, Value
from contiglint.source import SourceMap, text_digest
from contiglint.layout.flow.classes import ClassInfo, constructor_arguments
from contiglint.layout.flow.dependencies import UNMEMOISED, Dependencies, Round, SharedState

MAX_DEPTH = 6
NAME_LIMIT = 200  # characters of code that `short_text` names
FunctionNode = (ast.FunctionDef, ast.AsyncFunctionDef)


class Program(SharedState):
    # a call made before sinks are recorded that met no sink of a recorded kind gives what it
    # would give while recording: its result is taken then (`call`); the tests compare the
    # findings with it switched off
    reuse_quiet_runs = True

    def __init__(self, tree: ast.Module, source: SourceMap, path: str = "-",
                 project: Optional[ProjectContracts] = None,
                 index: Optional[ModuleIndex] = None, contracts: bool = True,
                 kinds: Optional[frozenset[str]] = None, observer=None) -> None:
        """`contracts`: False when no enabled rule reads the contract sinks (CTG114): then
        no contract is learned, and only the module's extension names (which make a call
        opaque) are known. `kinds`: the kinds of sink to record (None: every kind); the
        others are not made at all. `observer`: records the value of every expression
        while sinks are recorded (layout/explain/observe.py), for `contiglint explain` and
        editor hovers; without one the frames record nothing."""
        from contiglint.layout.flow.frame import Frame

        self.tree = tree
        self.frame_type = Frame if observer is None else observer.frame_type
        if observer is not None:
            self.reuse_quiet_runs = False  # every call runs while recording: observed
        self.source = source
        self.index = index or ModuleIndex(tree)  # the one walk of the tree (the caller's)
        self.names = self.index.import_map
        self.path = path
        self.module = module_name(path) if path not in ("-", "") else "__main__"
        package = path.endswith("__init__.py")
        # `from .k import f` -> k.f
        names = Names(tree, self.module, package, self.index)
        self.relative = names.local
        if contracts:
            digest = text_digest(source.text) if project is not None and project.own else ""
            self.contracts = module_contracts(tree, self.module, path, package, project,
                                              digest, self.index)
        else:
            self.contracts = ProjectContracts(extensions={
                self.module: extension_names(self.index, names)})
        # the node numbers (`ModuleIndex.number`) of the module's functions -> their contracts
        self.node_contracts: dict[int, FunctionContract] = {
            self.index.number(node): self.contracts.functions[key]
            for key, node, _ in function_keys(tree, self.module)
            if key in self.contracts.functions} if self.contracts.functions else {}
        self.extension_names = self.contracts.extensions.get(self.module, {})
        # the node numbers of the `backward` methods of torch.autograd.Function classes
        self.autograd_backward: set[int] = set()
        # ... and of their static methods that autograd calls with its context first
        self.autograd_methods: set[int] = set()
        self.functions: dict[str, ast.AST] = {}
        self.classes: dict[str, ClassInfo] = {}
        self.globals: dict[str, Value] = {}
        self.sinks: list[Sink] = []
        self.kinds = kinds
        self.recording = False
        # (function, receiver, arguments, standalone, recording) -> the result and what the
        # run read and wrote of the state that runs share (`Dependencies`). A result is
        # reused while none of that has changed since.
        self.cache: dict[tuple, tuple[Value, Dependencies]] = {}
        self.changes: dict[tuple, int] = {}  # shared state -> how often it changed
        self.reading: list[Dependencies] = []  # of each running call, innermost last
        self.active: list[str] = []
        self.kernels: set[str] = set()
        self.kernel_signatures: dict[str, Kernel] = {}
        self.version = 0  # bumped whenever a class attribute or a hook changes: a round
        # of learning that bumps it has not converged yet
        # While a class's attributes are learned: what its methods read of the shared state
        # (`Round`), so that a second round that cannot change anything is not run.
        self.round: Optional[Round] = None
        self.closures: dict[str, dict[str, Value]] = {}  # nested function -> enclosing env
        # (class, attribute) -> the hooks registered on that module: (kind, hook, with_kwargs)
        self.hooks: dict[tuple[str, str], list[tuple[str, Value, bool]]] = {}
        # (class, attributes) per running `super().__init__()`: the stores the subclass's
        # `__init__` overwrites afterwards, not joined into the class's attributes
        self.shadowed: list[tuple[str, frozenset[str]]] = []
        self.inlined: set[str] = set()  # functions already analysed while recording sinks
        # node -> Origin, computed once per node; keyed by the node itself, not its id: the call
        # a `functools.partial` application builds lives only while it is analysed, and a
        # later one could reuse its id
        self.origins: dict[ast.AST, object] = {}
        self.texts: dict[ast.AST, str] = {}  # node -> ast.unparse(node), the same way
        self.choices: dict[ast.AST, ast.If] = {}  # `v = a if p else b` as branches
        self.literals: dict[ast.AST, Value] = {}  # constant node -> its value, made once
        # attribute node -> the name its chain is rooted at and the chain's text (`attribute_path`)
        self.paths: dict[ast.AST, tuple[Optional[str], str]] = {}
        self.calls = self.index.calls
        self._collect()
        self.traced: dict[ast.AST, str] = traced_functions(self)  # def -> what jit.trace got

    def _collect(self) -> None:
        for node in self.tree.body:
            if isinstance(node, FunctionNode):
                self.functions[node.name] = node
                if is_jit_kernel(node):
                    self.kernels.add(node.name)
                    self.kernel_signatures[node.name] = kernel_signature(node, self.names)
            elif isinstance(node, ast.ClassDef):
                info = ClassInfo(node.name, node, bases=[
                    b.id if isinstance(b, ast.Name) else b.attr if isinstance(b, ast.Attribute)
                    else "" for b in node.bases])
                for item in node.body:
                    if isinstance(item, FunctionNode):
                        info.methods[item.name] = item
                        self.functions[f"{node.name}.{item.name}"] = item
                if any("Function" in b for b in info.bases):
                    self._collect_autograd(info)
                self.classes[node.name] = info

    def _collect_autograd(self, info: ClassInfo) -> None:
        """The static methods of an autograd Function, whose first parameter is the context
        autograd passes (a decorator's wrapper has no tensor to put in its place), and its
        `backward`, whose other parameters are gradients where its decorators keep them."""
        names = AUTOGRAD_CONTEXT_METHODS + (
            ("forward",) if forward_takes_context(info.methods) else ())
        for name in names:
            method = info.methods.get(name)
            if method is not None and is_static(method):
                self.autograd_methods.add(self.index.number(method))
        backward = info.methods.get("backward")
        if backward is not None and \
                all(self._keeps_arguments(d) for d in backward.decorator_list):
            self.autograd_backward.add(self.index.number(backward))

    def _keeps_arguments(self, decorator: ast.expr) -> bool:
        """Does the decorator's wrapper call the function with the arguments it was given
        (`catalogue.contracts.ARGUMENT_KEEPING_DECORATORS`)? Only then are a custom autograd
        `backward`'s parameters the gradients autograd made; under any other decorator they
        are whatever its wrapper passes on."""
        if isinstance(decorator, ast.Call):
            decorator = decorator.func  # `@torch.amp.custom_bwd(device_type="cuda")`
        name = self.names.qualname(decorator) or \
            (decorator.id if isinstance(decorator, ast.Name) else None)  # a builtin
        return name in ARGUMENT_KEEPING_DECORATORS

    # --- driving the analysis -----------------------------------------------------------------
    def run(self) -> list[Sink]:
        self.recording = False
        module = self.frame_type(self, None, ())
        module.run_block(self.tree.body)  # module constants and aliases, first without sinks
        self.globals = dict(module.env or {})  # None: `return` at module level (parses)
        for info in self.classes.values():
            self._learn_attributes(info)
        self.recording = True
        self.frame_type(self, None, ()).run_block(self.tree.body)
        # Functions the module calls by name, and the forward of each class it constructs by
        # name, are judged in their callers' contexts (a literal flag, a transposed argument
        # or the sizes of a tensor decide what happens inside); the others, and any the
        # callers never reached, run on their own with unknown arguments.
        called = frozenset(callee_name(call) for call in self.calls)
        keys = list(self.functions)
        deferred = self._called_through_instances(called)
        for key in [k for k in keys if k.rsplit(".", 1)[-1] not in called and
                    k not in deferred] + keys:
            if key not in self.inlined:
                owner = key.split(".")[0] if "." in key else None
                self.call(key, Instance(owner) if owner else None, [], {}, None,
                          standalone=True)
        return self.sinks

    def _called_through_instances(self, called: frozenset[str]) -> set[str]:
        """The methods an instance of a class the module constructs by name runs when it is
        called (`self.attn(x)` runs `Attention.forward`): like the functions called by name,
        they are judged in their callers' contexts first."""
        found = set()
        for name in called:
            info = self.classes.get(name)
            if info is not None:
                key = info.method("forward", self.classes) or \
                    info.method("__call__", self.classes)
                if key:
                    found.add(key)
        return found

    def _learn_attributes(self, info: ClassInfo) -> None:
        """Join every `self.x = ...` of the class: the methods that store on `self` run,
        `__init__` first, and run again while that changes what they read."""
        order = sorted((name for name, node in info.methods.items()
                        if self.index.stores_on_self(node)),
                       key=lambda name: name != "__init__")
        construction = constructor_arguments(self.index.calls_of.get(info.name, []))
        for _ in range(2 if len(order) > 1 else 1):
            before = self.version
            self.round = Round()
            self.reading.append(self.round.touched)
            try:
                for name in order:
                    if name == "__init__" and construction is not None:
                        args, kwargs = construction  # the one way the module builds it
                        self.call(f"{info.name}.__init__", Instance(info.name), args, kwargs,
                                  None)
                        continue
                    self.call(f"{info.name}.{name}", Instance(info.name), [], {}, None,
                              standalone=True)
                settled = self.version == before or self._settled(self.round)
            finally:
                self.reading.pop()
                self.round = None
            if settled:
                break

    def _settled(self, done: "Round") -> bool:
        """Would running the round's methods again change nothing? True when nothing a
        method read changed after the round first touched it (every read got its final
        value, so a second run takes the same paths with the same values), and every store it
        made leaves the final value as it is (so the second run's stores change nothing
        either)."""
        touched = done.touched
        if any(self.changes.get(what, 0) != touched.seen[what] for what in touched.reads):
            return False
        for cls, name, value in done.stores:
            final = self.classes[cls].attrs[name]
            if join(final, value) != final:
                return False
        return True

    # --- calls ----------------------------------------------------------------------------------
    def call(self, key: str, bound: Optional[Value], args: list[Value], kwargs: dict[str, Value],
             site: Optional[CallSite], chain: tuple[CallSite, ...] = (),
             standalone: bool = False) -> Value:
        node = self.functions.get(key)
        if node is None:
            return OPAQUE
        if key in self.active or len(self.active) >= MAX_DEPTH:
            return OPAQUE
        memo = (key, bound, tuple(args), tuple(sorted(kwargs.items())), standalone,
                self.recording)
        try:
            found = self.cache.get(memo)
            if found is None and self.recording and self.reuse_quiet_runs:
                # the same call made before sinks were recorded, which met no sink that is
                # recorded: running it again would record nothing and give the same result
                found = self.cache.get(memo[:-1] + (False,))
                if found is not None and not found[1].quiet:
                    found = None
        except TypeError:
            memo = found = None
        if found is not None:
            result, done = found
            changes = self.changes
            if all(changes.get(what, 0) == count for what, count in done.seen.items()
                   if what[0] not in UNMEMOISED):
                self._depends(done)
                if self.recording:
                    self.inlined |= done.ran  # as a run made now would mark them
                return result
        bound = self.receiver(node, key, bound)
        if self.recording:
            self.inlined.add(key)
        self.active.append(key)
        running = Dependencies(ran={key})
        self.reading.append(running)
        try:
            frame = self.frame_type(self, node, chain + ((site,) if site else ()))
            frame.env = dict(self.closure(key))
            frame.bind_parameters(bound, args, kwargs, standalone)
            frame.run_block(node.body)
            result = frame.result()
        finally:
            self.reading.pop()
            self.active.pop()
        self._depends(running)
        if memo is not None:
            self.cache[memo] = (result, running)
        return result

    def receiver(self, node: ast.AST, key: str, bound: Optional[Value]) -> Optional[Value]:
        """What a method's first parameter receives: nothing for a staticmethod, the class
        for a classmethod, else the bound instance."""
        decorators = {d.id if isinstance(d, ast.Name) else getattr(d, "attr", "")
                      for d in node.decorator_list}
        if "staticmethod" in decorators:
            return None
        if "classmethod" in decorators and "." in key:
            return Ref(f"<class>{key.split('.')[0]}")
        return bound

    def unparse(self, node: ast.AST) -> str:
        """`ast.unparse(node)`, remembered per node (keyed like `origins`): the analysis
        names sizes and stores by their text each time it runs the code again."""
        try:
            return self.texts[node]
        except KeyError:
            text = self.texts[node] = ast.unparse(node)
            return text

    def short_text(self, node: ast.expr) -> Optional[str]:
        """`unparse(node)` where the code spells `node` in at most `NAME_LIMIT` characters,
        else None. A size named by the text of its tensor (`owner.size(0)`) matches only code
        that spells the same expression again; naming every link of a long chain by its text
        would cost the square of the chain's length."""
        if getattr(node, "end_lineno", None) is None:
            return None
        starts = self.source.starts  # columns count bytes: a bound, not a length
        span = starts[node.end_lineno - 1] + node.end_col_offset - \
            starts[node.lineno - 1] - node.col_offset
        return self.unparse(node) if span <= NAME_LIMIT else None

    def emit(self, sink: Sink) -> None:
        if self.recording:
            self.sinks.append(sink)


def callee_name(call: ast.Call) -> str:
    """The name a call uses for its callee: `f` in `f(...)`, `self.f(...)`, `obj.f(...)`."""
    func = call.func
    return func.id if isinstance(func, ast.Name) else getattr(func, "attr", "")


def analyze_module(tree: ast.Module, source: SourceMap, path: str = "-",
                   project: Optional[ProjectContracts] = None,
                   index: Optional[ModuleIndex] = None, contracts: bool = True,
                   kinds: Optional[frozenset[str]] = None, observer=None) -> list[Sink]:
    return Program(tree, source, path, project, index, contracts, kinds, observer).run()
