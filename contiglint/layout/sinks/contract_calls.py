"""Reporting calls into code with a contiguity contract (the `contract` sink, read by CTG114).

At each call whose callee has a contract (learned by layout/contracts/ for the project's own
functions and custom ops, known from catalogue/contracts.py for libraries, unknown for compiled
extensions), every tensor argument bound to a required parameter becomes a sink carrying the
`Requirement`. Inside a function analysed in its caller's context, an argument that is the
function's own required parameter is not reported again: the caller's call is.
"""
from __future__ import annotations

import ast
from typing import Optional

from contiglint.catalogue import contracts as catalogue
from contiglint.layout.contracts.records import Evidence, FunctionContract, Requirement
from contiglint.layout.model.values import Mapping, Seq, Tensor, Value
from contiglint.layout.sinks.records import ContractSink

GUARD_WORDS = ("asserts", "raises if", "checks")  # how a guard's evidence reads

FunctionNode = (ast.FunctionDef, ast.AsyncFunctionDef)


def is_guard(requirement: Requirement) -> bool:
    return requirement.evidence[-1].what.startswith(GUARD_WORDS)


def contract_of(program, key: str) -> Optional[FunctionContract]:
    """The contract of the module's function `key`, if it has one."""
    node = program.functions.get(key)
    return program.node_contracts.get(program.index.number(node)) if node is not None else None


def guarded_parameters(program, function: Optional[ast.AST], chain: tuple) -> frozenset[str]:
    """The required parameters that `function`, analysed in its caller's context (`chain`),
    guards: it asserts or raises on their layout, itself or through a function it passes them
    to (`check(x)`). Past the guard such a parameter is contiguous, so a raw read of it there is
    not reported; the caller's call is (CTG114). A parameter required only because it is read
    raw is reported at the read (CTG106) and at the call."""
    own = program.node_contracts.get(program.index.number(function)) \
        if chain and function is not None else None
    if own is None:
        return frozenset()
    guarded = {name for name, requirement in own.required.items() if is_guard(requirement)}
    if len(guarded) == len(own.required):
        return frozenset(guarded)
    for node in ast.walk(function):  # `check(x)` of a function that guards it
        if not isinstance(node, ast.Call) or not isinstance(node.func, ast.Name):
            continue
        callee = contract_of(program, node.func.id)
        if callee is None:
            continue
        for position, passed in enumerate(node.args):
            if isinstance(passed, ast.Name) and passed.id in own.required:
                required = callee.required.get(callee.param_for(position, 0))
                if required is not None and is_guard(required):
                    guarded.add(passed.id)
    return frozenset(guarded)


class ContractChecker:
    """The contract sinks of one frame: at each call it is told of, the tensor arguments bound to
    parameters the callee requires to be contiguous are recorded (through the frame's
    `SinkRecorder`), unless they are the frame's own required parameters passed through."""

    def __init__(self, program, function: Optional[ast.AST], chain: tuple, sinks) -> None:
        self.program = program
        self.function = function
        self.chain = chain
        self.sinks = sinks

    def contract_of(self, key: str) -> Optional[FunctionContract]:
        return contract_of(self.program, key)

    def emit_function_call(self, node: ast.Call, key: str, args, kwargs, shift: int,
                           label: Optional[str] = None) -> None:
        """A call of the module's function `key` (named `label` in reports, `key` if None)."""
        self.emit_contract(node, self.contract_of(key), args, kwargs, shift, label or key)

    def emit_contract(self, node: ast.Call, contract: Optional[FunctionContract], args, kwargs,
                      shift: int, label: str) -> None:
        if contract is None or not contract.required or not self.sinks.keeps("contract"):
            return
        if label.startswith("<local>"):
            label = contract.qualname.rsplit(".", 1)[-1]
        for position, (argument, value) in enumerate(zip(node.args, args)):
            if isinstance(argument, ast.Starred):
                return
            param = contract.param_for(position, shift)
            if param in contract.required:
                self._contract_sink(node, argument, value, label, param,
                                    contract.required[param])
        for keyword in node.keywords:
            if keyword.arg in contract.required and keyword.arg in kwargs:
                self._contract_sink(node, keyword.value, kwargs[keyword.arg], label,
                                    keyword.arg, contract.required[keyword.arg])

    def _contract_sink(self, node: ast.Call, argument: ast.expr, value: Value, label: str,
                       param: str, requirement: Requirement, item: bool = False) -> None:
        if not isinstance(value, Tensor) or self.passed_through(argument):
            return
        self.sinks.record(ContractSink, node, argument, value, label, param=param,
                          requirement=requirement, item=item)

    def passed_through(self, argument: ast.expr) -> bool:
        """`argument` is a required parameter of the function being analysed in its caller's
        context: the caller's call is the one reported."""
        if not self.chain or not isinstance(argument, ast.Name) or self.function is None:
            return False
        own = self.program.node_contracts.get(self.program.index.number(self.function))
        return own is not None and argument.id in own.required

    def emit_qualname_contract(self, node: ast.Call, qualname: str, args, kwargs) -> None:
        """Calls by qualified name: project functions in other modules, custom ops, known
        library contracts and compiled extension modules."""
        if not self.sinks.keeps("contract") or qualname.startswith("torch.") and \
                not qualname.startswith("torch.ops."):
            return
        known = catalogue.KNOWN.get(qualname)
        if known is not None:
            self.emit_known(node, qualname, known, args, kwargs)
            return
        if qualname.startswith("<class>"):
            self.emit_class_call(node, qualname[len("<class>"):].rpartition(".")[0], args,
                                 kwargs)
            return
        contracts = self.program.contracts
        lookup = qualname
        if qualname.startswith("torch.ops."):
            parts = qualname[len("torch.ops."):].split(".")
            if len(parts) < 2 or parts[0] in ("aten", "prims", "prim", "quantized"):
                return
            lookup = "torch.ops." + ".".join(parts[:2])
            if contracts.lookup(lookup) is None:
                self.emit_unknown(node, lookup, args, kwargs, "a custom op defined outside "
                                  "the linted code")
                return
        contract = contracts.lookup(lookup)
        if contract is not None:
            self.emit_contract(node, contract, args, kwargs, 0, lookup)
            return
        owner = qualname.rpartition(".")[0]
        if owner and not qualname.startswith("torch.") and contracts.is_compiled_module(owner):
            self.emit_unknown(node, qualname, args, kwargs, "a function of the compiled "
                              "extension module", made_contiguous=self.extension_contiguous(
                                  node))

    def extension_contiguous(self, node: ast.Call) -> bool:
        root = node.func
        while isinstance(root, ast.Attribute):
            root = root.value
        return isinstance(root, ast.Name) and bool(self.program.extension_names.get(root.id))

    def emit_known(self, node: ast.Call, qualname: str, known, args, kwargs) -> None:
        if known.position < len(node.args):
            argument, value = node.args[known.position], args[known.position]
        elif known.keyword in kwargs:
            argument = next(k.value for k in node.keywords if k.arg == known.keyword)
            value = kwargs[known.keyword]
        else:
            return
        requirement = Requirement("full", (Evidence("", 0, 0, known.effect),), known.writes)
        items: list[tuple[ast.expr, Value]] = [(argument, value)]
        if known.items:
            if isinstance(argument, ast.Dict) and isinstance(value, Mapping) and \
                    len(argument.values) == len(value.values):
                items = list(zip(argument.values, value.values))
            elif isinstance(value, Mapping):  # with what was stored under computed keys
                items = [(argument, v) for v in value.values +
                         ((value.rest,) if value.rest is not None else ())]
            elif isinstance(value, Seq):
                items = [(argument, v) for v in (value.items or (value.each,))]
        for item, item_value in items:
            self._contract_sink(node, item, item_value, qualname, known.keyword, requirement,
                                item=item is argument and known.items)

    def emit_unknown(self, node: ast.Call, label: str, args, kwargs, what: str,
                     made_contiguous: bool = False) -> None:
        evidence = Evidence("", 0, 0, f"`{label}` is {what}: {catalogue.EXTENSION_EFFECT}")
        requirement = Requirement("full" if made_contiguous else "unknown", (evidence,))
        for argument, value in list(zip(node.args, args)) + [
                (k.value, kwargs[k.arg]) for k in node.keywords if k.arg in kwargs]:
            if isinstance(argument, ast.Starred):
                continue
            self._contract_sink(node, argument, value, label, "", requirement)

    def emit_class_call(self, node: ast.Call, cls: str, args, kwargs) -> None:
        """`Cls.apply(x)` -> `Cls.forward(ctx, x)`; `Cls.static(x)`; `Cls.klass(x)`."""
        name = node.func.attr if isinstance(node.func, ast.Attribute) else ""
        info = self.program.classes.get(cls.rsplit(".", 1)[-1])
        if info is None or not name:
            return
        if name == "apply":
            key = info.method("forward", self.program.classes)
            shift = int(catalogue.forward_takes_context(
                {m for m in catalogue.AUTOGRAD_CONTEXT_METHODS
                 if info.method(m, self.program.classes)}))
        else:
            key = info.method(name, self.program.classes)
            method = self.program.functions.get(key) if key else None
            decorators = {ast.unparse(d) for d in method.decorator_list} if method else set()
            shift = 1 if "classmethod" in decorators else 0
        if key:
            self.emit_function_call(node, key, args, kwargs, shift, f"{cls}.{name}")
