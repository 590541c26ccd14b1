"""The flow pass over one function body: statements in order, branches joined, loops iterated.

A `Frame` holds the environment (name -> abstract value) of one activation of a function (or of
the module body). `run_block` executes statements and returns with `self.env` set to the state
after them, or `None` when every path returned or raised. Expressions and calls are evaluated by
the mixins in expressions.py, subscripts.py, calls.py and methods.py, on `self.env`. Sinks are
recorded through the frame's `SinkRecorder` (`self.sinks`, layout/sinks/emission.py), contract
sinks through its `ContractChecker` (`self.contracts`, layout/sinks/contract_calls.py); each owns
its own state.
"""
from __future__ import annotations

import ast
from typing import Optional

from contiglint.layout.model.frozen import evolve
from contiglint.layout.flow import conditions
from contiglint.layout.flow.calls import CallMixin
from contiglint.layout.sinks.contract_calls import ContractChecker
from contiglint.layout.flow.expressions import ExpressionMixin, handler_for
from contiglint.layout.flow.methods import MethodMixin
from contiglint.layout.sinks.emission import SinkRecorder
from contiglint.layout.sinks.records import CallSite
from contiglint.layout.model.sizes import literal, symbol
from contiglint.layout.model.stride_checks import stride_truth
from contiglint.layout.flow.subscripts import SubscriptMixin
from contiglint.layout.model.values import (
    CONTIGUOUS,
    NOT_TENSOR,
    OPAQUE,
    UNKNOWN_TENSOR,
    Const,
    Dims,
    Function,
    Instance,
    IntVal,
    Kind,
    Mapping,
    Origin,
    Seq,
    Tensor,
    Value,
    bind_size,
    join,
)

Env = Optional[dict[str, Value]]
CHECKS = ("torch._check", "torch._check_value")  # raise when their first argument is False
LOOP_ROUNDS = 3


GRAD_OUTPUT = "grad_output"


def grad_output(param: ast.arg) -> Tensor:
    """A gradient passed to a custom autograd `backward`: its layout is whatever the consumer of
    the forward output made (a transpose, a slice or an expand of the output makes it
    non-contiguous), so it is unknown, with its parameter as origin."""
    return Tensor(Kind.UNKNOWN, None, Origin(GRAD_OUTPUT, param.lineno, param.col_offset + 1))


def truth_of(value: Value) -> Optional[bool]:
    """The truth of a condition the analysis knows (a literal flag passed by the caller)."""
    if isinstance(value, Const) and isinstance(value.value, (bool, int, str, type(None))):
        return bool(value.value)
    return None


def join_envs(a: Env, b: Env) -> Env:
    if a is None:
        return None if b is None else dict(b)
    if b is None:
        return dict(a)
    out = {}
    for name, value in a.items():
        other = b.get(name, _UNBOUND)
        if other is value:  # unchanged on both paths: most names
            out[name] = value
        elif other is _UNBOUND:
            out[name] = join(value, OPAQUE)  # bound on one path only
        else:
            out[name] = join(value, other)
    for name, value in b.items():
        if name not in a:
            out[name] = join(value, OPAQUE)
    return out


_UNBOUND = object()


class Frame(ExpressionMixin, SubscriptMixin, CallMixin, MethodMixin):
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
        self.blocks: list[list] = []  # [statement list, index] of each block being run
        self.sinks = SinkRecorder(program, function, chain, self.loops)
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
        defaults = [None] * (len(positional) - len(spec.defaults)) + list(spec.defaults)
        for index, (param, default) in enumerate(zip(positional, defaults)):
            if index < len(values):
                value = values[index]
            elif param.arg in kwargs:
                value = kwargs[param.arg]
            elif default is not None and not standalone:
                value = self.safe_eval(default)
            else:
                value = self.annotated(param)
            if standalone and index > 0 and id(self.function) in self.program.autograd_backward:
                value = grad_output(param)
            self.env[param.arg] = self.narrow_by_annotation(param, value)
        if spec.vararg:
            extra = values[len(positional):]
            each = grad_output(spec.vararg) \
                if id(self.function) in self.program.autograd_backward else OPAQUE
            self.env[spec.vararg.arg] = Seq(tuple(extra)) if not standalone else Seq(each=each)
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
        qualname = self.program.names.qualname(param.annotation) if param.annotation else None
        if qualname in ("torch.Tensor", "torch.nn.Parameter"):
            return UNKNOWN_TENSOR
        return OPAQUE

    def narrow_by_annotation(self, param: ast.arg, value: Value) -> Value:
        if param.annotation is None or value is not OPAQUE:
            return value
        qualname = self.program.names.qualname(param.annotation)
        if qualname and not _tensor_type(qualname):
            return NOT_TENSOR
        if isinstance(param.annotation, ast.Name) and param.annotation.id in (
                "int", "float", "str", "bool", "list", "dict", "tuple"):
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
        if len(node.targets) == 1 and isinstance(node.targets[0], ast.Tuple):
            self.name_unpacked_sizes(node.targets[0], node.value)
        value = self.evaluate(node.value)
        for target in node.targets:
            self.assign(target, value, node.value)

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

    def stmt_If(self, node: ast.If) -> None:
        truth = truth_of(self.evaluate(node.test))
        if truth is None and self.env is not None:
            truth = stride_truth(node.test, lambda name: self.env.get(name))
        self.sinks.layout_branch(node.test)
        yes, no = self.refine(node.test, self.env)
        condition = conditions.condition_of(node.test) if truth is None else None
        split = self.splits.get(condition.key) if condition is not None else None
        if split is not None and conditions.valid(split, self.assigned) and yes is not None:
            truth = conditions.truth(condition, split)  # correlated with an earlier `if`
            body, index = self.blocks[-1] if self.blocks else (None, 0)
            replayed = None
            if truth is None and split.where is not None and split.where[0] == id(body) \
                    and split.where[1] < index and split.paths is not None:
                replayed = self.replay(body[split.where[1] + 1:index], split.paths)
            if replayed is not None:
                yes, no = conditions.sides(condition, split, replayed)
                truth = True if no is None else False if yes is None else None
            else:
                yes, no = dict(yes), dict(no)
                conditions.restore(condition, split, yes, True, self.assigned)
                conditions.restore(condition, split, no, False, self.assigned)
        before = [self.assigned.get(n, 0) for n in condition.names] if condition else None
        after_yes = self.branch(node.body, yes) if truth is not False else None
        after_no = self.branch(node.orelse, no) if truth is not True else None
        self.env = join_envs(after_yes, after_no)
        if condition is not None and self.env is not None and \
                before == [self.assigned.get(n, 0) for n in condition.names]:
            recorded = conditions.record(condition, after_yes, after_no, self.env,
                                         self.assigned)
            if recorded is not None:
                body, index = self.blocks[-1] if self.blocks else (None, 0)
                self.splits[condition.key] = evolve(recorded, where=(id(body), index))

    def replay(self, statements: list[ast.stmt], paths: tuple) -> Optional[tuple[Env, Env]]:
        """Run `statements` again on each of two environments, reporting nothing and leaving
        the frame as it was: what each path holds when it reaches the next statement."""
        saved = (self.env, self.splits, self.assigned, len(self.returns), len(self.yields),
                 self.program.recording, [len(e) for e in self.loop_exits],
                 [len(h) for h in self.loop_heads])
        self.program.recording = False
        out = []
        try:
            for env in paths:
                self.env, self.splits, self.assigned = dict(env), {}, dict(saved[2])
                self.run_block(statements)
                out.append(self.env)
        finally:
            self.env, self.splits, self.assigned = saved[:3]
            del self.returns[saved[3]:], self.yields[saved[4]:]
            self.program.recording = saved[5]
            for kept, exits in zip(saved[6], self.loop_exits):
                del exits[kept:]
            for kept, heads in zip(saved[7], self.loop_heads):
                del heads[kept:]
        return out[0], out[1]

    def stmt_Assert(self, node: ast.Assert) -> None:
        """Past `assert x.is_contiguous()` (or a stride check) the code runs only where the
        check held: `x` is contiguous from here on, as in the `if` branch of the same test."""
        self.evaluate(node.test)
        if node.msg is not None:
            self.evaluate(node.msg)
        self.env = self.refine(node.test, self.env)[0]

    def stmt_While(self, node: ast.While) -> None:
        self.evaluate(node.test)
        self.sinks.layout_branch(node.test)
        self.loop(node, lambda: None)

    def stmt_For(self, node: ast.For) -> None:
        iterated = self.evaluate(node.iter)
        count = self.literal_range(node)
        if count is not None:
            self.loops.append(node)
            splits = self.splits
            for index in range(count):  # `for _ in range(2)`: two transposes cancel out
                if self.env is None:
                    break
                self.splits = dict(splits)
                self.assign(node.target, IntVal(literal(index)), None)
                self.run_block(node.body)
            self.loops.pop()
            self.splits = splits
            self.run_block(node.orelse)
            return
        items = iterated.items if isinstance(iterated, Seq) else None
        if items is not None and 0 < len(items) <= 8 and not self.jumps(node):
            self.loops.append(node)  # `for block in self.blocks:` each block in its turn
            splits = self.splits
            for item in items:
                if self.env is None:
                    break
                self.splits = dict(splits)
                self.assign(node.target, item, None)
                self.run_block(node.body)
            self.loops.pop()
            self.splits = splits
            self.run_block(node.orelse)
            return
        element = self.iterate(iterated)
        self.loop(node, lambda: self.assign(node.target, element, None))

    @staticmethod
    def jumps(node: ast.For) -> bool:
        return any(isinstance(n, (ast.Break, ast.Continue, ast.Yield, ast.Try))
                   for n in ast.walk(node))

    def literal_range(self, node: ast.For) -> Optional[int]:
        """n for `for i in range(n)` where n is known and small (a literal, or a constructor
        argument such as `self.depth`), and the body has no break/continue/yield."""
        call = node.iter
        if not (isinstance(call, ast.Call) and isinstance(call.func, ast.Name)
                and call.func.id == "range" and len(call.args) == 1 and not call.keywords):
            return None
        count = self.evaluate(call.args[0])
        if not (isinstance(count, IntVal) and count.size is not None and not count.size[1]
                and 0 <= count.size[0] <= 8):
            return None
        jumps = (ast.Break, ast.Continue, ast.Yield, ast.Try)
        if any(isinstance(n, jumps) for n in ast.walk(node)):
            return None
        return count.size[0]

    def name_unpacked_sizes(self, targets: ast.Tuple, value: ast.expr) -> None:
        """`B, C = y.shape[:2]` / `b, n, c = x.size()`: write the names into `y`'s unknown sizes,
        so a later `y.view(B, C, -1)` is matched dim by dim."""
        start = 0
        if isinstance(value, ast.Subscript) and isinstance(value.slice, ast.Slice) \
                and value.slice.step is None:
            lower = value.slice.lower
            if lower is not None and not (isinstance(lower, ast.Constant)
                                          and isinstance(lower.value, int) and lower.value >= 0):
                return
            start = lower.value if lower is not None else 0
            value = value.value
        if isinstance(value, ast.Call) and isinstance(value.func, ast.Attribute) \
                and value.func.attr == "size" and not value.args:
            value = value.func
        if not (isinstance(value, ast.Attribute) and value.attr in ("shape", "size")):
            return
        owner = value.value
        key = owner.id if isinstance(owner, ast.Name) else self.attribute_key(owner) \
            if isinstance(owner, ast.Attribute) else None
        tensor = self.env.get(key) if key and self.env is not None else None
        if not isinstance(tensor, Tensor) or tensor.geometry is None:
            return
        geometry = tensor.geometry
        for offset, target in enumerate(targets.elts):
            index = start + offset
            if isinstance(target, ast.Starred) or index >= geometry.rank:
                return
            if isinstance(target, ast.Name) and geometry.axes[index].size is None:
                geometry = geometry.with_axis(index, size=symbol(target.id))
        self.env[key] = evolve(tensor, geometry=geometry)

    stmt_AsyncFor = stmt_For

    def loop(self, node, bind) -> None:
        entry = self.env
        current = dict(entry)
        self.loops.append(node)
        self.loop_exits.append([])
        self.loop_heads.append([])
        splits = self.splits
        for _ in range(LOOP_ROUNDS):
            self.env = dict(current)
            self.splits = dict(splits)  # what one round learns of conditions stays in it
            bind()
            self.run_block(node.body)
            heads = [self.env] + self.loop_heads[-1]
            self.loop_heads[-1] = []
            merged = current
            for head in heads:
                merged = join_envs(merged, head)
            if merged == current:
                break
            current = merged
        exits = self.loop_exits.pop()
        self.loop_heads.pop()
        self.loops.pop()
        self.env = current
        self.splits = splits
        self.run_block(node.orelse)
        for env in exits:
            self.env = join_envs(self.env, env)

    def stmt_Break(self, node: ast.Break) -> None:
        if self.loop_exits:
            self.loop_exits[-1].append(self.env)
        self.env = None

    def stmt_Continue(self, node: ast.Continue) -> None:
        if self.loop_heads:
            self.loop_heads[-1].append(self.env)
        self.env = None

    def stmt_With(self, node: ast.With) -> None:
        for item in node.items:
            value = self.evaluate(item.context_expr)
            if item.optional_vars is not None:
                self.assign(item.optional_vars, OPAQUE if not isinstance(value, Tensor)
                            else value, None)
        self.run_block(node.body)

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
            key = f"<local>{id(node)}"
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

    # --- assignment ---------------------------------------------------------------------------
    def assign(self, target: ast.expr, value: Value, source: Optional[ast.expr]) -> None:
        if isinstance(target, ast.Name):
            self.count_assignment(target.id)
            self.env[target.id] = value
        elif isinstance(target, (ast.Tuple, ast.List)):
            self.unpack(target.elts, value)
        elif isinstance(target, ast.Starred):
            self.assign(target.value, Seq(each=self.iterate(value)), None)
        elif isinstance(target, ast.Attribute):
            owner = self.evaluate(target.value)
            key = self.attribute_key(target)
            self.count_assignment(key or self.program.unparse(target))
            if key is not None:
                self.env[key] = value
            if isinstance(owner, Instance):
                self.program.store_attribute(owner.cls, target.attr, value)
                if source is not None and isinstance(value, Tensor):  # what escape() records
                    self.sinks.escape(target, source, value,
                                      f"stored on {self.program.unparse(target)}")
        elif isinstance(target, ast.Subscript):
            container = self.evaluate(target.value)
            key = self.evaluate(target.slice)
            if not _string_key(target.slice):  # td["obs"] = v: a tensor takes no str index
                self.sinks.inplace(target, target.value, container, "item assignment")
            if isinstance(container, Mapping):  # `cache["k"] = t`: the dict now holds t
                known = isinstance(key, Const) or (isinstance(key, IntVal) and key.size
                                                   is not None and not key.size[1])
                label = key.value if isinstance(key, Const) else \
                    key.size[0] if known else None
                self.rebind(target.value, container.stored(label, value, known))
            elif isinstance(container, Seq) and not isinstance(target.slice, ast.Slice):
                at = key.size[0] if isinstance(key, IntVal) and key.size is not None and \
                    not key.size[1] else None
                items = container.items
                if items is not None and at is not None and -len(items) <= at < len(items):
                    at %= len(items)
                    self.rebind(target.value, Seq(items[:at] + (value,) + items[at + 1:]))
                else:
                    self.rebind(target.value, Seq(each=join(container.element(), value)))

    def rebind(self, target: ast.expr, value: Value) -> None:
        """A container changed in place (`lst.append(t)`, `d[k] = t`): its name (or `self.x`
        attribute) now holds the new value."""
        if self.env is None:
            return
        if isinstance(target, ast.Name):
            self.count_assignment(target.id)
            self.env[target.id] = value
        elif isinstance(target, ast.Attribute):
            key = self.attribute_key(target)
            self.count_assignment(key or self.program.unparse(target))
            if key is not None:
                self.env[key] = value
            owner = self.evaluate(target.value)
            if isinstance(owner, Instance):
                self.program.store_attribute(owner.cls, target.attr, value)

    def unpack(self, targets: list[ast.expr], value: Value) -> None:

        stars = [i for i, t in enumerate(targets) if isinstance(t, ast.Starred)]
        if isinstance(value, Dims) or (isinstance(value, Seq) and value.items is None
                                       and value.each is None):
            sizes = value.sizes if isinstance(value, Dims) else None
            if sizes is not None and len(sizes) == len(targets) and not stars:
                for target, size in zip(targets, sizes):
                    name = target.id if isinstance(target, ast.Name) else None
                    self.assign(target, IntVal(size if size is not None else
                                               (symbol(name) if name else None)), None)
                return
            for target in targets:
                name = target.id if isinstance(target, ast.Name) else None
                self.assign(target, IntVal(symbol(name) if name and not stars else None), None)
            return
        if isinstance(value, Seq) and value.items is not None and not stars \
                and len(value.items) == len(targets):
            for target, item in zip(targets, value.items):
                self.assign(target, item, None)
            return
        element = self.iterate(value)
        for target in targets:
            self.assign(target, element, None)

    def attribute_key(self, node: ast.Attribute) -> Optional[str]:
        """`self.x` (or `obj.x.y`) as a flow-sensitive name, when rooted at a local name."""
        try:
            root, key = self.program.paths[node]
        except KeyError:
            root, key = self.program.paths[node] = attribute_path(node)
        if root is not None and (root == "self" or (self.env is not None and root in self.env)):
            return key
        return None

    # --- branches ----------------------------------------------------------------------------
    def layout_checked_names(self, test: ast.expr) -> list[tuple[str, bool]]:
        """Names whose layout `test` checks; True when the check is `is_contiguous()`."""
        found: list[tuple[str, bool]] = []
        if not self.program.index.queries_layout(test):
            return found
        for node in ast.walk(test):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and \
                    isinstance(node.func.value, ast.Name) and \
                    node.func.attr in ("is_contiguous", "stride"):
                found.append((node.func.value.id, node.func.attr == "is_contiguous"
                              and not node.keywords))
        return found

    def unit_size_test(self, test: ast.expr, env: Env) -> Optional[tuple[str, bool]]:
        """The size symbol that `test` tests to be 1, and on which side (True: where the test
        holds: `n == 1`, `x.shape[1] == 1`, `x.size(-1) <= 1`, `b < 2`, `1 == n`; False:
        where it fails: `n != 1`, `n > 1`, `n >= 2`), or None. A size is never negative, and
        the view of a tensor without elements never raises either: `< 2` counts as 1."""
        if not (isinstance(test, ast.Compare) and len(test.ops) == 1):
            return None
        left, op, right = test.left, test.ops[0], test.comparators[0]
        if isinstance(left, ast.Constant):
            left, right = right, left
            op = {ast.Lt: ast.Gt(), ast.LtE: ast.GtE()}.get(type(op), op)
        if not (isinstance(right, ast.Constant) and type(right.value) is int):
            return None
        test_of = {(ast.Eq, 1): True, (ast.Lt, 2): True, (ast.LtE, 1): True,
                   (ast.NotEq, 1): False, (ast.Gt, 1): False, (ast.GtE, 2): False}
        when = test_of.get((type(op), right.value))
        if when is None or env is None or not _size_read(left):
            return None
        saved, self.env = self.env, env
        try:
            value = self.evaluate(left)
        finally:
            self.env = saved
        if value is OPAQUE and isinstance(left, ast.Name):
            return left.id, when  # an unknown name stands for itself in sizes
        size = value.size if isinstance(value, IntVal) else None
        return (size[1][0], when) if size is not None and size[0] == 1 and len(size[1]) == 1 \
            else None

    def refine(self, test: ast.expr, env: Env) -> tuple[Env, Env]:
        """Split the environment on layout checks: `if x.is_contiguous():` / `if not ...`."""
        if env is None:
            return None, None
        negate = False
        while isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
            negate, test = not negate, test.operand
        if isinstance(test, ast.BoolOp):
            # `a and b` holds only where both do, `a or b` fails only where both do; the other
            # side knows nothing: `if not x.is_contiguous() or off: x = x.contiguous()` may
            # take its body with x contiguous (off) or not.
            yes, no = env, env
            for operand in test.values:
                if isinstance(test.op, ast.And):
                    yes = self.refine(operand, yes)[0]
                else:
                    no = self.refine(operand, no)[1]
            return (no, yes) if negate else (yes, no)
        names = self.layout_checked_names(test)
        if not names:
            unit = self.unit_size_test(test, env)
            if unit is None:
                return env, env
            name, when = unit
            one, other = dict(env), env  # `n == 1` holds on one side: n is 1 there
            for key, value in env.items():
                one[key] = bind_size(value, name, 1)
            return (other, one) if negate == when else (one, other)
        yes, no = dict(env), dict(env)
        contiguous_branch, other = (no, yes) if negate else (yes, no)
        for name, exact in names:
            value = env.get(name)
            if isinstance(value, Tensor) or value is OPAQUE:
                geometry = value.geometry if isinstance(value, Tensor) else None
                contiguous_branch[name] = Tensor(Kind.CONTIGUOUS if exact else Kind.UNKNOWN,
                                                 geometry if exact else None)
                other[name] = value
        return yes, no


def _size_read(node: ast.expr) -> bool:
    """A name, `x.shape[i]`, `x.size(i)` or `x.size()[i]` of a name: reads that record no sink."""
    if isinstance(node, ast.Name):
        return True
    if isinstance(node, ast.Subscript):
        node = node.value
        if isinstance(node, ast.Call) and not node.args:
            node = node.func
        return isinstance(node, ast.Attribute) and node.attr in ("shape", "size") and \
            isinstance(node.value, ast.Name)
    return isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and \
        node.func.attr == "size" and len(node.args) == 1 and isinstance(node.func.value, ast.Name)


def _string_key(index: ast.expr) -> bool:
    """A str key (`d["a"]`, `td["next", "obs"]`): the container is a mapping, never a tensor."""
    items = index.elts if isinstance(index, ast.Tuple) else [index]
    return any(isinstance(item, ast.Constant) and isinstance(item.value, str) for item in items)


TENSOR_SUBCLASS_MODULES = ("torch", "torchvision.tv_tensors", "torchvision.datapoints")


def _tensor_type(qualname: str) -> bool:
    """Whether an imported annotation may name a tensor: anything from torch itself, a tensor
    subclass module, or a class named like one (`DTensor`, `NestedTensor`). `torchrl`'s
    `Composite` or `tensordict.TensorDict` are not tensors, whatever their names start with."""
    module, _, name = qualname.rpartition(".")
    if any(module == m or module.startswith(m + ".") for m in TENSOR_SUBCLASS_MODULES):
        return True
    return name.endswith("Tensor") or name in ("Parameter", "Buffer")


def attribute_path(node: ast.Attribute) -> tuple[Optional[str], str]:
    """The name an attribute chain is rooted at and the chain's dotted text (`self`,
    "self.norm.weight"), or (None, "") when it is rooted at anything but a name."""
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if not isinstance(node, ast.Name):
        return None, ""
    return node.id, ".".join([node.id] + list(reversed(parts)))
