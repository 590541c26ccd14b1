"""Evaluating expressions to abstract values, and reporting the sinks they contain."""
from __future__ import annotations

import ast
import operator
from typing import Callable, Optional

from contiglint.catalogue import ops as catalogue
from contiglint.layout.model import op_transfers
from contiglint.layout.flow.nn_modules import module_parameter
from contiglint.layout.model.frozen import evolve
from contiglint.layout.model.indexing import Index
from contiglint.layout.model.sizes import combined, literal, multiply, symbol
from contiglint.layout.model.transfer import Call
from contiglint.layout.model.path_joins import join
from contiglint.layout.model.values import (
    NOT_TENSOR,
    OPAQUE,
    UNKNOWN_TENSOR,
    Const,
    Dims,
    Function,
    Instance,
    IntVal,
    Mapping,
    Origin,
    Ref,
    Seq,
    Tensor,
    Value,
)

TENSOR_ATTRIBUTES_NOT_TENSOR = catalogue.NOT_TENSOR_ATTRIBUTES


def handler_for(frame: type, prefix: str, node: type) -> Optional[Callable]:
    """`frame`'s method `expr_Call`, `stmt_If`... for a node type, or None."""
    return getattr(frame, prefix + node.__name__, None)


class ExpressionMixin:
    # node type -> handler, filled as node types are met, so that a handler's name is not
    # formatted and looked up again at every node; each class has its own
    _expr_handlers: dict[type, Optional[Callable]] = {}
    _stmt_handlers: dict[type, Optional[Callable]] = {}

    def __init_subclass__(cls, **kwargs) -> None:
        super().__init_subclass__(**kwargs)
        cls._expr_handlers, cls._stmt_handlers = {}, {}

    def evaluate(self, node: Optional[ast.expr]) -> Value:
        if node is None:
            return OPAQUE
        try:
            handler = self._expr_handlers[node.__class__]
        except KeyError:
            handler = self._expr_handlers[node.__class__] = handler_for(
                type(self), "expr_", node.__class__)
        if handler is None:
            for child in ast.iter_child_nodes(node):
                if isinstance(child, ast.expr):
                    self.evaluate(child)
            return OPAQUE
        return handler(self, node)

    def safe_eval(self, node: ast.expr) -> Value:
        if self.env is None:
            self.env = {}
        return self.evaluate(node)

    def origin(self, node: ast.AST) -> Origin:
        """The op's text and position; for `a.b(...)` the position of `.b`, not of `a`."""
        cached = self.program.origins.get(node)
        if cached is None:
            cached = self.program.origins[node] = self.compute_origin(node)
        return cached

    def compute_origin(self, node: ast.AST) -> Origin:
        source = self.program.source
        func = node.func if isinstance(node, ast.Call) else node
        if isinstance(func, ast.Attribute) and not self.program.names.qualname(func):
            start, _ = source.attribute_name(func)
            return Origin(self.op_text(node), start.line, max(start.column - 1, 1))
        start = source.start(node)
        return Origin(self.op_text(node), start.line, start.column)

    def op_text(self, node: ast.AST) -> str:
        """`.transpose(1, 2)` for a method call, `torch.cat(...)` for a function call."""
        source = self.program.source
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) \
                and not self.program.names.qualname(node.func):
            arguments = source.text[source.offset(source.end(node.func)):
                                    source.offset(source.end(node))]
            return source.shorten_text(f".{node.func.attr}{arguments}", 40)
        if isinstance(node, ast.Attribute):
            return "." + node.attr
        if isinstance(node, ast.Subscript):
            return source.shorten_text("[" + source.segment(node.slice) + "]", 40)
        return source.shorten(node, 40)

    # --- names and attributes -------------------------------------------------------------------
    def expr_Name(self, node: ast.Name) -> Value:
        if self.env is not None and node.id in self.env:
            return self.env[node.id]
        if node.id in self.program.globals:
            return self.program.globals[node.id]
        if node.id in self.program.functions and "." not in node.id:
            return Function(node.id)
        if node.id in self.program.classes:
            return self.class_ref(node.id)
        qualname = self.program.names.qualname(node)
        if qualname is not None:
            return Ref(qualname)
        if node.id in self.program.relative:  # `from .kernels import fused_rmsnorm`
            return Ref(self.program.relative[node.id])
        return OPAQUE

    def class_ref(self, name: str) -> Value:
        return Ref(f"<class>{name}")

    def expr_Attribute(self, node: ast.Attribute) -> Value:
        key = self.attribute_key(node) if self.env is not None else None
        if key is not None and key in self.env:
            return self.env[key]
        qualname = self.program.names.qualname(node)
        if qualname is not None:
            return Ref(qualname)
        owner = self.evaluate(node.value)
        if isinstance(owner, Instance):
            info = self.program.classes.get(owner.cls)
            if info is None:
                return OPAQUE
            value = self.program.class_attribute(info, node.attr)
            if value is not None:
                return value
            method = info.method(node.attr, self.program.classes)
            if method and is_property(self.program.functions[method]):
                return self.program.call(method, owner, [], {}, self.site(node, method),
                                         self.chain)
            return Function(method, owner) if method else OPAQUE
        if isinstance(owner, Ref) and owner.qualname.startswith("<class>"):
            info = self.program.classes.get(owner.qualname[len("<class>"):])
            method = info.method(node.attr, self.program.classes) if info else None
            if method:
                return Function(method)
            value = self.program.class_attribute(info, node.attr) if info else None
            return value if value is not None else OPAQUE
        if isinstance(owner, Ref):
            if owner.instance:
                return module_parameter(owner, node.attr)
            return Ref(f"{owner.qualname}.{node.attr}")
        if isinstance(owner, Seq) and owner.items is not None and len(owner.items) == 2 and \
                node.attr in catalogue.PAIR_FIELDS:
            return owner.items[catalogue.PAIR_FIELDS[node.attr]]  # `x.max(1).values`
        if owner is NOT_TENSOR or isinstance(owner, (Const, Seq, IntVal, Function)):
            return NOT_TENSOR if owner is NOT_TENSOR or isinstance(owner, Const) else OPAQUE
        return self.tensor_attribute(node, owner)

    def tensor_attribute(self, node: ast.Attribute, owner: Value) -> Value:
        if node.attr == "shape":
            return Dims(owner.geometry.sizes) if isinstance(owner, Tensor) and owner.geometry \
                else Dims(None)
        if node.attr in TENSOR_ATTRIBUTES_NOT_TENSOR:
            return NOT_TENSOR
        if node.attr in ("grad", "data") and owner is OPAQUE:
            return UNKNOWN_TENSOR
        if node.attr == "grad":
            return UNKNOWN_TENSOR
        if node.attr in op_transfers.ATTRIBUTES:
            op = op_transfers.method(node.attr)
            return op.transfer(Call(node.attr, self.as_tensor(owner), origin=self.origin(node),
                                    owner=self.size_owner(node.value)))
        return OPAQUE

    def as_tensor(self, value: Value) -> Value:
        return UNKNOWN_TENSOR if value is OPAQUE else value

    # --- literals and containers ----------------------------------------------------------------
    def expr_Constant(self, node: ast.Constant) -> Value:
        literals = self.program.literals
        try:
            return literals[node]
        except KeyError:
            value = node.value
            made = literals[node] = IntVal(literal(value)) if isinstance(value, int) and \
                not isinstance(value, bool) else Const(value)
            return made

    def expr_Tuple(self, node) -> Value:
        items: list[Value] = []
        for element in node.elts:
            if isinstance(element, ast.Starred):
                inner = self.evaluate(element.value)
                if isinstance(inner, Dims) and inner.sizes is not None:
                    items.extend(IntVal(size) for size in inner.sizes)
                elif isinstance(inner, Seq) and inner.items is not None:
                    items.extend(inner.items)
                else:
                    return Seq(each=self.iterate(inner))
            else:
                items.append(self.evaluate(element))
        return Seq(tuple(items))

    expr_List = expr_Tuple

    def expr_Set(self, node) -> Value:
        for element in node.elts:
            self.evaluate(element)
        return NOT_TENSOR

    def expr_Dict(self, node: ast.Dict) -> Value:
        values = tuple(self.evaluate(child) for child in node.values)
        for key in node.keys:
            if key is not None:
                self.evaluate(key)
        if all(isinstance(key, ast.Constant) for key in node.keys):
            return Mapping(tuple(key.value for key in node.keys), values)
        return OPAQUE

    def expr_JoinedStr(self, node) -> Value:
        return NOT_TENSOR

    def expr_Lambda(self, node) -> Value:
        return OPAQUE

    def comprehension(self, node) -> Value:
        saved = self.env
        self.env = dict(saved) if saved is not None else {}
        for generator in node.generators:
            element = self.iterate(self.evaluate(generator.iter))
            self.assign(generator.target, element, None)
            for condition in generator.ifs:
                self.evaluate(condition)
        if isinstance(node, ast.DictComp):
            self.evaluate(node.key)
            self.evaluate(node.value)
            value = OPAQUE
        else:
            value = Seq(each=self.evaluate(node.elt))
        self.env = saved
        return value

    expr_ListComp = expr_SetComp = expr_GeneratorExp = expr_DictComp = comprehension

    def iterate(self, value: Value) -> Value:
        """The value of one element when iterating over `value`."""
        if isinstance(value, Seq):
            return value.element()
        if isinstance(value, Tensor):
            return op_transfers.index(value, [Index("int")], Origin("[i]", 0, 0)) \
                if value.geometry is not None else UNKNOWN_TENSOR
        if isinstance(value, Dims):
            return IntVal(None)
        return OPAQUE

    # --- operators ----------------------------------------------------------------------------
    def expr_BinOp(self, node: ast.BinOp) -> Value:
        left, right = self.evaluate(node.left), self.evaluate(node.right)
        if isinstance(left, IntVal) and isinstance(right, IntVal):
            return IntVal(self.size_arithmetic(node, left, right))
        if isinstance(node.op, ast.MatMult):  # `a @ b` is torch.matmul(a, b)
            return op_transfers.method("matmul").transfer(Call("matmul", left, [right]))
        if isinstance(left, (Seq, Dims)) and isinstance(node.op, ast.Add):
            return concatenate(left, right)
        if isinstance(left, (Seq, Dims, Const)) and not isinstance(right, Tensor):
            return Seq(each=self.iterate(left)) if isinstance(left, (Seq, Dims)) else OPAQUE
        if left is NOT_TENSOR and right is NOT_TENSOR:
            return NOT_TENSOR
        if not isinstance(left, Tensor) and not isinstance(right, Tensor):
            return OPAQUE if left is OPAQUE or right is OPAQUE else NOT_TENSOR
        operands = [v for v in (left, right) if not isinstance(v, (IntVal, Const))]
        op = op_transfers.method("add")
        return op.transfer(Call("add", operands[0], operands[1:], origin=self.origin(node)))

    def size_arithmetic(self, node: ast.BinOp, left: IntVal, right: IntVal):
        a, b = left.size, right.size
        if isinstance(node.op, ast.Mult):
            return multiply(a, b)
        fold = _FOLD.get(type(node.op))
        if a is not None and b is not None and not a[1] and not b[1]:
            if fold is None or (b[0] == 0 and fold in (operator.floordiv, operator.mod)):
                return None
            return literal(fold(a[0], b[0]))
        composed = combined(a, node.op, b) if fold is not None else None
        return composed if composed is not None else symbol(self.program.unparse(node))

    def expr_UnaryOp(self, node: ast.UnaryOp) -> Value:
        value = self.evaluate(node.operand)
        if isinstance(value, IntVal) and isinstance(node.op, ast.USub) and value.size \
                and not value.size[1]:
            return IntVal(literal(-value.size[0]))
        if isinstance(node.op, ast.Not):
            return Const(not value.value) if isinstance(value, Const) else NOT_TENSOR
        if isinstance(value, Tensor):
            return op_transfers.method("neg").transfer(Call("neg", value, origin=self.origin(node)))
        return value if isinstance(value, IntVal) else OPAQUE

    def expr_BoolOp(self, node: ast.BoolOp) -> Value:
        values = [self.evaluate(v) for v in node.values]
        out = values[0]
        for value in values[1:]:
            out = join(out, value)
        return out

    def expr_Compare(self, node: ast.Compare) -> Value:
        values = [self.evaluate(node.left)] + [self.evaluate(c) for c in node.comparators]
        literals = [_literal(v) for v in values]
        if len(values) == 2 and None not in literals and type(node.ops[0]) in _COMPARE:
            try:
                return Const(_COMPARE[type(node.ops[0])](literals[0][0], literals[1][0]))
            except TypeError:  # `None < 5`: raises at run time too; nothing to fold
                return NOT_TENSOR
        if any(isinstance(v, Tensor) for v in values):
            result = op_transfers.method("eq").transfer(Call("eq", values[0], values[1:],
                                                             origin=self.origin(node)))
            # a mask: indexing with it selects as many elements as are true (data, not sizes)
            return evolve(result, dtype="bool") if isinstance(result, Tensor) else result
        if any(v is OPAQUE for v in values) and len(node.ops) == 1 and not isinstance(
                node.ops[0], (ast.Is, ast.IsNot, ast.In, ast.NotIn)):
            return OPAQUE  # `x > 0` of an unknown x may be a (boolean) tensor
        return NOT_TENSOR

    def expr_IfExp(self, node: ast.IfExp) -> Value:
        test = self.evaluate(node.test)
        if isinstance(test, Const):
            return self.evaluate(node.body if test.value else node.orelse)
        if self.env is None:
            return join(self.evaluate(node.body), self.evaluate(node.orelse))
        saved = self.env
        yes, no = self.refine(node.test, saved)  # `x.view(-1) if x.is_contiguous() else ...`
        try:
            self.env = yes
            body = self.evaluate(node.body)
            self.env = no
            orelse = self.evaluate(node.orelse)
        finally:
            self.env = saved
        return join(body, orelse)

    def expr_NamedExpr(self, node: ast.NamedExpr) -> Value:
        value = self.evaluate(node.value)
        self.assign(node.target, value, None)
        return value

    def expr_Starred(self, node: ast.Starred) -> Value:
        return self.evaluate(node.value)

    def expr_Await(self, node) -> Value:
        return self.evaluate(node.value)

    def expr_Yield(self, node: ast.Yield) -> Value:
        if node.value is not None:
            self.yields.append(self.evaluate(node.value))
        return OPAQUE


_COMPARE = {ast.Eq: operator.eq, ast.NotEq: operator.ne, ast.Is: operator.is_,
            ast.IsNot: operator.is_not, ast.Lt: operator.lt, ast.LtE: operator.le,
            ast.Gt: operator.gt, ast.GtE: operator.ge}


def _literal(value: Value) -> Optional[tuple[object]]:
    """The Python value of a constant or a literal integer, boxed (None means not known)."""
    if isinstance(value, Const):
        return (value.value,)
    if isinstance(value, IntVal) and value.size is not None and not value.size[1]:
        return (value.size[0],)
    return None


_FOLD = {ast.Add: operator.add, ast.Sub: operator.sub, ast.FloorDiv: operator.floordiv,
         ast.Mod: operator.mod}


def concatenate(left: Value, right: Value) -> Value:
    """`x.shape[:-1] + (h, d)` and `[b] + sizes + [c]`: a sequence of known items if both are."""
    def items(value: Value):
        if isinstance(value, Dims):
            return None if value.sizes is None else tuple(IntVal(s) for s in value.sizes)
        return value.items if isinstance(value, Seq) else None
    a, b = items(left), items(right)
    if a is not None and b is not None:
        return Seq(a + b)
    return Seq(each=OPAQUE)


def is_property(definition: ast.AST) -> bool:
    """`@property` / `@functools.cached_property`: reading the attribute runs the method."""
    return any((d.id if isinstance(d, ast.Name) else getattr(d, "attr", "")) in
               ("property", "cached_property") for d in definition.decorator_list)
