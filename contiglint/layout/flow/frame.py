"""The flow pass over one function body: statements in order, branches joined, loops iterated.

A `Frame` holds the environment (name -> abstract value) of one activation of a function (or of
the module body). `run_block` executes statements and returns with `self.env` set to the state
after them, or `None` when every path returned or raised (environments.py). Branches, loops,
assignment and the unpacking of shapes are the mixins of branch_statements.py,
loop_statements.py, assignment.py and unpacks.py; expressions and calls are evaluated by those
of expressions.py, subscripts.py, calls.py and methods.py, on `self.env`. Sinks are recorded
through the frame's `SinkRecorder` (`self.sinks`, layout/sinks/emission.py), contract sinks
through its `ContractChecker` (`self.contracts`, layout/sinks/contract_calls.py); each owns its
own state.
"""
from __future__ import annotations

import ast
from typing import Optional

from contiglint.layout.flow.annotations import annotated_tensor
from contiglint.layout.flow import conditions
from contiglint.layout.flow.assignment import AssignMixin
from contiglint.layout.flow.branch_statements import BranchMixin
from contiglint.expected import expects_exception
from contiglint.layout.flow.environments import Env, join_envs
from contiglint.layout.flow.loop_statements import LoopMixin
from contiglint.layout.flow.calls import CallMixin
from contiglint.layout.sinks.contract_calls import ContractChecker
from contiglint.layout.flow.expressions import ExpressionMixin, handler_for
from contiglint.layout.flow.methods import MethodMixin
from contiglint.layout.flow.size_aliases import SizeAliasMixin
from contiglint.layout.sinks.emission import SinkRecorder
from contiglint.layout.sinks.records import CallSite
from contiglint.layout.flow.subscripts import SubscriptMixin
from contiglint.layout.flow.unpacks import UnpackMixin
from contiglint.layout.model.path_joins import join, join_all
from contiglint.layout.model.sizes import symbol
from contiglint.layout.model.values import (
    CONTIGUOUS,
    AUTOGRAD_CONTEXT,
    NOT_TENSOR,
    OPAQUE,
    UNKNOWN_TENSOR,
    Const,
    Function,
    Instance,
    IntVal,
    Kind,
    Mapping,
    Origin,
    Ref,
    Seq,
    Spread,
    Tensor,
    Value,
)

CHECKS = ("torch._check", "torch._check_value")  # raise when their first argument is False


GRAD_OUTPUT = "grad_output"


def grad_output(param: ast.arg) -> Tensor:
    """A gradient passed to a custom autograd `backward`: its layout is whatever the consumer of
    the forward output made (a transpose, a slice or an expand of the output makes it
    non-contiguous), so it is unknown, with its parameter as origin."""
    return Tensor(Kind.UNKNOWN, None, Origin(GRAD_OUTPUT, param.lineno, param.col_offset + 1))



class Frame(BranchMixin, LoopMixin, AssignMixin, UnpackMixin, ExpressionMixin, SubscriptMixin,
            CallMixin, MethodMixin, SizeAliasMixin):
    def __init__(self, program, function: Optional[ast.AST], chain: tuple[CallSite, ...]):
        self.program = program
        self.function = function
        self.chain = chain
        self.env: Env = {}
        self.returns: list[Value] = []
        self.yields: list[Value] = []
        self.loops: list[ast.AST] = []
        self.loop_exits: list[list[Env]] = []
        self.loop_heads: list[list[Env]] = []
        self.self_class: Optional[str] = None
        self.splits: dict[str, conditions.Split] = {}  # see conditions.py
        self.assigned: dict[str, int] = {}  # name or attribute key -> assignments so far
        self.size_roots: set[str] = set()  # names another's sizes were named after (size_aliases)
        self.blocks: list[list] = []  # [statement list, index] of each block being run
        self.sinks = SinkRecorder(program, function, chain, self.loops, lambda: self.env)
        self.contracts = ContractChecker(program, function, chain, self.sinks)

    # --- entry and exit -------------------------------------------------------------------------
    def bind_parameters(self, bound: Optional[Value], args: list[Value],
                        kwargs: dict[str, Value], standalone: bool) -> None:
        spec = self.function.args
        positional = spec.posonlyargs + spec.args
        values = list(args)
        if bound is not None:
            values.insert(0, bound)
            if isinstance(bound, Instance):
                self.self_class = bound.cls
        spread = next((i for i, v in enumerate(values) if isinstance(v, Spread)), None)
        if spread is not None:  # from there on, each parameter takes one of the items
            unknown = values[spread:]
            item = join_all([v.element() if isinstance(v, Spread) else v for v in unknown])
            values = values[:spread]
        defaults = [None] * (len(positional) - len(spec.defaults)) + list(spec.defaults)
        # a custom autograd `backward`: its tensors are gradients
        number = self.program.index.number(self.function)
        backward = number in self.program.autograd_backward
        context = number in self.program.autograd_methods
        for index, (param, default) in enumerate(zip(positional, defaults)):
            if index < len(values):
                value = values[index]
            elif param.arg in kwargs:  # named: the spread stops short of it (else it raises)
                value = kwargs[param.arg]
            elif spread is not None:  # an item, or the default where there are fewer
                value = item if default is None or standalone else \
                    join(item, self.safe_eval(default))
            elif default is not None and not standalone:
                value = self.safe_eval(default)
            else:
                value = self.annotated(param)
            if standalone and index > 0 and backward:
                value = grad_output(param)
            elif standalone and index == 0 and context:
                value = AUTOGRAD_CONTEXT
            self.env[param.arg] = self.narrow_by_annotation(param, value)
        if spec.vararg:
            extra = values[len(positional):]
            each = grad_output(spec.vararg) \
                if backward else OPAQUE
            self.env[spec.vararg.arg] = Seq(each=each) if standalone else \
                Seq(tuple(extra)) if spread is None else \
                Seq(each=join_all(list(extra) + [item]))
        for param, default in zip(spec.kwonlyargs, spec.kw_defaults):
            value = kwargs.get(param.arg, self.safe_eval(default) if default is not None and
                               not standalone else self.annotated(param))
            self.env[param.arg] = self.narrow_by_annotation(param, value)
        if spec.kwarg:
            named = {p.arg for p in positional + spec.kwonlyargs}
            extra = {k: v for k, v in kwargs.items() if k not in named}
            self.env[spec.kwarg.arg] = OPAQUE if standalone else \
                Mapping(tuple(extra), tuple(extra.values()))

    def annotated(self, param: ast.arg) -> Value:
        stated = annotated_tensor(param.annotation, self.program.names.qualname)
        if stated is not None:  # `x: Float[Tensor, "b n c"]`: its rank and sizes
            return stated
        qualname = self.program.names.qualname(param.annotation) if param.annotation else None
        if qualname in ("torch.Tensor", "torch.nn.Parameter"):
            return UNKNOWN_TENSOR
        return OPAQUE

    def narrow_by_annotation(self, param: ast.arg, value: Value) -> Value:
        if param.annotation is None or value is not OPAQUE:
            return value
        stated = annotated_tensor(param.annotation, self.program.names.qualname)
        if stated is not None:
            return stated
        qualname = self.program.names.qualname(param.annotation)
        if qualname and not _tensor_type(qualname):
            # an array or plain value is not a tensor, nor are its attributes; an object of
            # another class may hold tensors (`encoder.pos_embedding`), whose layout is unknown
            return NOT_TENSOR if _value_type(qualname) else Ref(qualname, instance=True)
        if isinstance(param.annotation, ast.Name) and param.annotation.id == "int":
            # a number a caller chooses, named as the code names it: the size `H` of
            # `x.view(B, H, W, C)`, as an unannotated parameter's name gives it
            return IntVal(symbol(param.arg))
        if isinstance(param.annotation, ast.Name) and param.annotation.id in (
                "float", "str", "bool", "list", "dict", "tuple"):
            return NOT_TENSOR
        return value

    def result(self) -> Value:
        """What a call returns; for a generator, the sequence of what it yields."""
        if self.yields:
            out = self.yields[0]
            for value in self.yields[1:]:
                out = join(out, value)
            return Seq(each=out)
        if not self.returns:
            return Const(None)
        out = self.returns[0]
        for value in self.returns[1:]:
            out = join(out, value)
        return out

    # --- statements -------------------------------------------------------------------------------
    def run_block(self, body: list[ast.stmt]) -> None:
        self.blocks.append([body, 0])
        try:
            self._run_statements(body)
        finally:
            self.blocks.pop()

    def _run_statements(self, body: list[ast.stmt]) -> None:
        for index, statement in enumerate(body):
            if self.env is None:
                return
            self.blocks[-1][1] = index
            try:
                handler = self._stmt_handlers[statement.__class__]
            except KeyError:
                handler = self._stmt_handlers[statement.__class__] = handler_for(
                    type(self), "stmt_", statement.__class__)
            if handler is not None:
                handler(self, statement)
            else:
                for child in ast.iter_child_nodes(statement):
                    if isinstance(child, ast.expr):
                        self.evaluate(child)

    def branch(self, body: list[ast.stmt], env: Env) -> Env:
        saved, splits = self.env, self.splits
        self.env = None if env is None else dict(env)
        self.splits = dict(splits)  # what the branch learns of conditions stays in it
        self.run_block(body)
        out, self.env, self.splits = self.env, saved, splits
        return out

    def count_assignment(self, name: Optional[str]) -> None:
        if name is not None:
            self.assigned[name] = self.assigned.get(name, 0) + 1

    def stmt_Expr(self, node: ast.Expr) -> None:
        self.evaluate(node.value)
        call = node.value
        if isinstance(call, ast.Call) and call.args and \
                self.program.names.qualname(call.func) in CHECKS:
            self.env = self.refine(call.args[0], self.env)[0]  # past it, the check held

    def stmt_Assign(self, node: ast.Assign) -> None:
        if runs_as_branches(node):
            self.stmt_If(self._as_branches(node))
            return
        bound = self.name_unpacked_sizes(node.targets[0], node.value) \
            if len(node.targets) == 1 and isinstance(node.targets[0], ast.Tuple) else None
        value = self.evaluate(node.value)
        for target in node.targets:
            self.assign(target, value, node.value)
        if bound and self.env is not None:
            self.env.update(bound)

    def _as_branches(self, node: ast.Assign) -> ast.If:
        """`v = a if p else b` as `if p: v = a` / `else: v = b`, made once per statement:
        where `p` is a flag (a name or an attribute) and `v` a name, a later test of `p`, in
        an `if` or in another such assignment, takes the path this one took (conditions.py);
        a store into an attribute or an item stays one store of the joined value. Joined as
        values, two choices by one flag (`v = v0 if p else v0.contiguous()` then `w = v.t()
        if p else v`) gave findings on paths that do not exist."""
        made = self.program.choices.get(node)
        if made is None:
            choice = node.value
            yes = ast.copy_location(ast.Assign(targets=node.targets, value=choice.body), node)
            no = ast.copy_location(ast.Assign(targets=node.targets, value=choice.orelse), node)
            made = self.program.choices[node] = ast.copy_location(
                ast.If(test=choice.test, body=[yes], orelse=[no]), node)
        return made

    def stmt_AnnAssign(self, node: ast.AnnAssign) -> None:
        if node.value is not None:
            self.assign(node.target, self.evaluate(node.value), node.value)

    def stmt_AugAssign(self, node: ast.AugAssign) -> None:
        target_value = self.evaluate(node.target)
        operand = self.evaluate(node.value)
        symbol = type(node.op).__name__
        self.sinks.inplace(node, node.target, target_value, f"{symbol} assignment")
        if isinstance(target_value, Tensor) or target_value is OPAQUE:
            result = target_value
        else:
            result = join(target_value, operand) if isinstance(target_value, Seq) else OPAQUE
        if isinstance(node.op, ast.MatMult):
            result = CONTIGUOUS
        self.assign(node.target, result, None)

    def stmt_Return(self, node: ast.Return) -> None:
        value = self.evaluate(node.value) if node.value is not None else Const(None)
        if node.value is not None:
            self.sinks.escape(node, node.value, value, "returned")
        self.returns.append(value)
        self.env = None

    def stmt_Raise(self, node: ast.Raise) -> None:
        if node.exc is not None:
            self.evaluate(node.exc)
        self.env = None

    def stmt_Delete(self, node: ast.Delete) -> None:
        for target in node.targets:
            if isinstance(target, ast.Name):
                self.env.pop(target.id, None)
            else:
                self.evaluate(target)

    def stmt_With(self, node: ast.With) -> None:
        for item in node.items:
            value = self.evaluate(item.context_expr)
            if item.optional_vars is not None:
                self.assign(item.optional_vars, OPAQUE if not isinstance(value, Tensor)
                            else value, None)
        # a block that expects an exception stops where it is raised, and the code after it
        # runs on: what held at its end may not hold there (a view that raised ran no further)
        expecting = any(expects_exception(item.context_expr) for item in node.items)
        entry = dict(self.env) if expecting and self.env is not None else None
        self.run_block(node.body)
        if expecting:
            self.env = join_envs(entry, self.env)

    stmt_AsyncWith = stmt_With

    def stmt_Try(self, node) -> None:
        entry = self.env
        after_body = self.branch(node.body, entry)
        handlers_entry = join_envs(entry, after_body)
        outs = [self.branch(node.orelse, after_body)]
        for handler in node.handlers:
            env = None if handlers_entry is None else dict(handlers_entry)
            if env is not None and handler.name:
                env[handler.name] = NOT_TENSOR
            outs.append(self.branch(handler.body, env))
        merged = None
        for env in outs:
            merged = join_envs(merged, env) if merged is not None else env
        if node.finalbody:
            self.env = merged if merged is not None else handlers_entry
            self.run_block(node.finalbody)
            if merged is None:
                self.env = None
        else:
            self.env = merged

    stmt_TryStar = stmt_Try

    def stmt_Match(self, node) -> None:
        self.evaluate(node.subject)
        entry = self.env
        merged = None
        for case in node.cases:
            env = dict(entry)
            for child in ast.walk(case.pattern):
                name = getattr(child, "name", None)
                if isinstance(name, str):
                    env[name] = OPAQUE
            out = self.branch(case.body, env)
            merged = out if merged is None else join_envs(merged, out)
        self.env = join_envs(merged, entry)

    def stmt_FunctionDef(self, node) -> None:

        if self.function is None:
            self.env[node.name] = Function(node.name)
        else:
            key = f"<local>{self.program.index.number(node)}"  # the node's number in the module
            self.program.functions.setdefault(key, node)
            self.program.set_closure(key, dict(self.env))  # what the nested function can see
            self.env[node.name] = Function(key)

    stmt_AsyncFunctionDef = stmt_FunctionDef

    def stmt_ClassDef(self, node: ast.ClassDef) -> None:
        if self.function is None:
            self.env[node.name] = OPAQUE if node.name not in self.program.classes \
                else self.class_ref(node.name)

    def stmt_Import(self, node) -> None:
        return None

    stmt_ImportFrom = stmt_Import
    stmt_Global = stmt_Import
    stmt_Nonlocal = stmt_Import
    stmt_Pass = stmt_Import


# modules whose classes are arrays or plain values: no attribute of theirs is a tensor
VALUE_TYPE_MODULES = frozenset({"numpy", "np", "pandas", "pd", "builtins", "typing", "pathlib",
                                "collections", "jax", "tensorflow", "PIL", "scipy"})
TENSOR_SUBCLASS_MODULES = ("torch", "torchvision.tv_tensors", "torchvision.datapoints")


def _value_type(qualname: str) -> bool:
    """Whether an annotation names an array or value type, none of whose attributes is a
    tensor (`np.ndarray`, `pd.DataFrame`, `pathlib.Path`, builtins)."""
    return "." not in qualname or qualname.split(".", 1)[0] in VALUE_TYPE_MODULES


def _tensor_type(qualname: str) -> bool:
    """Whether an imported annotation may name a tensor: anything from torch itself, a tensor
    subclass module, or a class named like one (`DTensor`, `NestedTensor`). `torchrl`'s
    `Composite` or `tensordict.TensorDict` are not tensors, whatever their names start with."""
    module, _, name = qualname.rpartition(".")
    if any(module == m or module.startswith(m + ".") for m in TENSOR_SUBCLASS_MODULES):
        return True
    return name.endswith("Tensor") or name in ("Parameter", "Buffer")


def runs_as_branches(node: ast.Assign) -> bool:
    """Is the statement a choice by a flag bound to names, which runs as an `if` statement
    (`Frame._as_branches`)?"""
    return node.value.__class__ is ast.IfExp and conditions.is_flag(node.value.test) and \
        all(target.__class__ is ast.Name for target in node.targets)
