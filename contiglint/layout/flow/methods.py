"""Method calls: on tensors (the op table and method sinks), on the module's own instances,
on nn modules, and on values that are not tensors."""
from __future__ import annotations

import ast
from typing import Optional

from contiglint.layout.model import op_transfers, views
from contiglint.layout.flow.environments import counted
from contiglint.layout.flow.calls import (
    COPY_IF_NEEDED,
    DTYPES,
    SHAPE_CONSUMERS,
    SIZE_LISTS,
)
from contiglint.catalogue import ops as catalogue
from contiglint.catalogue.inplace import SIZE_CHANGING, is_inplace as is_inplace_method
from contiglint.layout.sinks.records import (
    METHOD_SINKS,
    RECORDS,
    ContiguousCallSink,
    DeviceMoveSink,
    RawMemorySink,
    ViewSink,
)
from contiglint.layout.model.geometry import Geometry
from contiglint.layout.model.sizes import literal
from contiglint.layout.model.reshape_views import element_count, with_lead
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
    Kind,
    Mapping,
    Partial,
    Ref,
    Seq,
    Tensor,
    Value,
)


# nn.Module hook registrations: a forward hook runs as `hook(module, args, output)` after each
# call of the module, a pre-hook as `hook(module, args)` before it (`with_kwargs=True`: the
# keyword arguments come after `args`)
HOOKS = {"register_forward_hook": "forward", "register_forward_pre_hook": "pre"}


class MethodMixin:
    def call_method(self, node: ast.Call, func: ast.Attribute, receiver: Value, args,
                    kwargs) -> Value:
        name = func.attr
        if name in HOOKS and args and isinstance(args[0], (Function, Partial)) and (
                isinstance(receiver, (Instance, Ref)) or receiver is OPAQUE):
            return self.register_hook(node, func, receiver, HOOKS[name], args[0], kwargs)
        if isinstance(receiver, Instance):
            return self.call_own_method(node, func, receiver, args, kwargs)
        if isinstance(receiver, Function):
            return OPAQUE
        if isinstance(receiver, Ref):
            if receiver.instance and name in catalogue.MODULE_RETURNS_SELF:
                return receiver
            if receiver.instance and name == "forward":
                return self.call_module(node, receiver.qualname, args, kwargs, receiver.width,
                                        receiver.config)
            return OPAQUE if receiver.instance else self.call_qualname(
                node, f"{receiver.qualname}.{name}", args, kwargs)
        if isinstance(receiver, Mapping):
            known = receiver.rest is None
            if name == "values":
                return Seq(receiver.values) if known else Seq(each=receiver.element())
            if name == "items":
                if known:
                    return Seq(tuple(Seq((Const(k), v)) for k, v in zip(receiver.keys,
                                                                           receiver.values)))
                return Seq(each=Seq((NOT_TENSOR, receiver.element())))
            if name == "keys":
                return Seq(tuple(Const(k) for k in receiver.keys)) if known else \
                    Seq(each=NOT_TENSOR)
            if name == "get" and args and isinstance(args[0], Const):
                return receiver.get(args[0].value)
            if name == "update" and args and isinstance(args[0], Mapping):
                updated = receiver
                for key, value in zip(args[0].keys, args[0].values):
                    updated = updated.stored(key, value, True)
                self.rebind(func.value, updated)
            return OPAQUE
        if isinstance(receiver, Seq) and receiver.chained:
            if name in catalogue.MODULE_RETURNS_SELF:
                return receiver
            if name == "forward":
                return self.call_value(node, receiver, args, kwargs)
        if isinstance(receiver, (Seq, Dims)):
            if name == "append" and args and isinstance(args[0], Tensor):
                self.sinks.escape(node, node.args[0], args[0], f"appended to "
                                  f"{self.program.unparse(func.value)}")
            if isinstance(receiver, Seq) and args and name in ("append", "extend", "insert"):
                self.rebind(func.value, grown(receiver, name, args))
            if name in ("numel",):
                return IntVal(None)
            if name == "pop" and isinstance(receiver, Seq):
                return receiver.element()
            return OPAQUE if isinstance(receiver, Seq) else NOT_TENSOR
        if receiver is NOT_TENSOR and name in ("transpose", "swapaxes") and args:
            return self.foreign_permute(node, name, args)
        if receiver is NOT_TENSOR or isinstance(receiver, (Const, IntVal)):
            return NOT_TENSOR
        if receiver is OPAQUE and name in ("append", "add", "insert") and args and \
                isinstance(args[0], Tensor):
            self.sinks.escape(node, node.args[0], args[0],
                              f"appended to {self.program.unparse(func.value)}")
            return NOT_TENSOR
        return self.call_tensor_method(node, func, self.as_tensor(receiver), args, kwargs)

    def call_own_method(self, node: ast.Call, func: ast.Attribute, receiver: Instance, args,
                        kwargs) -> Value:
        name = func.attr
        cls = receiver.cls.replace("<super>", "")
        info = self.program.classes.get(cls)
        if info is not None:
            if receiver.cls.startswith("<super>"):
                key = next((info2.method(name, self.program.classes)
                            for base in info.bases
                            if (info2 := self.program.classes.get(base))), None)
            else:
                key = info.method(name, self.program.classes)
            if key:
                bound = Instance(cls)
                definition = self.program.functions.get(key)
                shift = int(definition is not None and self.program.receiver(
                    definition, key, bound) is not None)
                self.contracts.emit_function_call(node, key, args, kwargs, shift)
                later = self.reassigned_later(node) if name == "__init__" and \
                    receiver.cls.startswith("<super>") else frozenset()
                if not later:
                    return self.program.call(key, bound, args, kwargs, self.site(node, key),
                                             self.chain)
                self.program.shadowed.append((cls, later))
                try:
                    return self.program.call(key, bound, args, kwargs, self.site(node, key),
                                             self.chain)
                finally:
                    self.program.shadowed.pop()
            stored = self.env.get(f"self.{name}") if self.env else None
            stored = stored or self.program.class_attribute(info, name)
            if stored is not None:
                hooks = self.program.hooks_of(cls, name)
                for kind, hook, with_kwargs in hooks:
                    if kind == "pre":
                        self.fire_hook(node, kind, hook, stored, args, with_kwargs)
                result = self.call_value(node, stored, args, kwargs)
                for kind, hook, with_kwargs in hooks:
                    if kind == "forward":
                        self.fire_hook(node, kind, hook, stored, args, with_kwargs, result)
                return result
        if name in ("register_buffer", "register_parameter") and len(args) >= 2:
            for spec in METHOD_SINKS.get(name, ()):
                self.sinks.record(RECORDS[spec.kind], node,
                                  node.args[1] if len(node.args) > 1 else None, args[1], name)
            label = args[0].value if isinstance(args[0], Const) else None
            if isinstance(label, str):
                self.program.store_attribute(cls, label, args[1])
                if self.env is not None:
                    self.env[f"self.{label}"] = args[1]
            return Const(None)
        if name in catalogue.MODULE_RETURNS_SELF:
            return receiver
        return OPAQUE

    def reassigned_later(self, call: ast.Call) -> frozenset[str]:
        """The `self.x` that this `__init__` assigns unconditionally (at the top level of its
        body) after the statement holding `super().__init__(...)`: what the base classes
        store there is overwritten before the object is built."""
        body = getattr(self.function, "body", None) or []
        position = next((i for i, statement in enumerate(body)
                         if statement.lineno <= call.lineno <= statement.end_lineno), None)
        if position is None:
            return frozenset()
        return frozenset(
            target.attr for statement in body[position + 1:]
            if isinstance(statement, (ast.Assign, ast.AnnAssign))
            for target in (statement.targets if isinstance(statement, ast.Assign)
                           else [statement.target])
            if isinstance(target, ast.Attribute) and isinstance(target.value, ast.Name)
            and target.value.id == "self")

    def register_hook(self, node: ast.Call, func: ast.Attribute, module: Value, kind: str,
                      hook: Value, kwargs) -> Value:
        """`m.register_forward_hook(hook)`: the hook runs now on the module called with an
        unknown input, and again after every call of `self.m(...)` in the owner's methods
        (with the arguments and output there), when `m` is an attribute of one of the
        module's own classes."""
        flag = kwargs.get("with_kwargs")
        with_kwargs = isinstance(flag, Const) and flag.value is True
        target = func.value
        if isinstance(target, ast.Attribute) and isinstance(target.value, ast.Name):
            owner = self.evaluate(target.value)
            if isinstance(owner, Instance):
                self.program.add_hook(owner.cls.replace("<super>", ""), target.attr,
                                      (kind, hook, with_kwargs))
        self.fire_hook(node, kind, hook, module, [UNKNOWN_TENSOR], with_kwargs)
        return OPAQUE  # the handle

    def fire_hook(self, node: ast.Call, kind: str, hook: Value, module: Value, inputs,
                  with_kwargs: bool, output: Optional[Value] = None) -> None:
        arguments = [module, Seq(tuple(inputs))]
        if with_kwargs:
            arguments.append(Mapping((), (), OPAQUE))
        if kind == "forward":
            if output is None:
                output = self.call_value(node, module, list(inputs), {}, chained=True) \
                    if isinstance(module, (Instance, Ref)) else UNKNOWN_TENSOR
            arguments.append(self.as_tensor(output))
        self.call_value(node, hook, arguments, {})

    def call_tensor_method(self, node: ast.Call, func: ast.Attribute, tensor: Tensor, args,
                           kwargs) -> Value:
        name = func.attr
        if name in COPY_IF_NEEDED:
            self.sinks.copied(node, tensor)
        elif name == "numpy" and self.program.index.raw_buffer(node) is not None:
            self.sinks.record(RawMemorySink, node, func.value, tensor,
                              self.program.index.raw_buffer(node))
        if name in SHAPE_CONSUMERS or isinstance(func.value, (ast.Name, ast.Attribute)):
            tensor = self.named_sizes(func.value, tensor)  # size symbols survive permutes
        if name in catalogue.SIZES_BY_NAME and not (
                len(node.args) == 1 and isinstance(node.args[0], (ast.Name, ast.Attribute))):
            # (one name of unknown type may be a whole shape: `x.view(new_shape)`)
            args = self.named_size_arguments(node, args)
        if name in SIZE_LISTS:
            args = self.named_size_lists(node, args)  # x.split_with_sizes([1, B - 1], 1)
        for spec in METHOD_SINKS.get(name, ()):
            self.emit_method_sink(spec.kind, node, func, tensor, args, kwargs)
        if name in ("view", "reshape"):  # past here its element counts agree
            count = element_count(Call(name, tensor, args, kwargs))
            if count is not None:
                counted(self.env, count)
        if is_inplace_method(name):
            self.sinks.inplace(node, func.value, tensor, f".{name}()")
        if name in SIZE_CHANGING and isinstance(func.value, ast.Name):
            self.note_sizes_of(func.value.id, None)  # its sizes are others now
        if name == "size":
            if args:
                dim = args[0]
                if isinstance(dim, IntVal) and dim.size and not dim.size[1]:
                    return self.dim_size(func.value, tensor, dim.size[0], called=True)
                return IntVal(None)
            return Dims(tensor.geometry.sizes if tensor.geometry else None)
        if name in ("dim", "ndimension"):
            return IntVal(literal(tensor.rank)) if tensor.rank is not None else IntVal(None)
        if name == "stride" and len(args) == 1 and tensor.kind is Kind.CONTIGUOUS:
            return contiguous_stride(tensor, args[0])
        if name in ("numel", "nelement", "element_size", "stride", "storage_offset", "item"):
            return IntVal(None) if name != "stride" or args else NOT_TENSOR
        op = op_transfers.method(name)
        if op is not None:
            if op.effect == "not-a-tensor":
                return NOT_TENSOR
            return op.transfer(Call(name, tensor, args, kwargs, self.origin(node),
                                    owner=self.size_owner(func.value)))
        if is_inplace_method(name):
            return tensor
        return OPAQUE

    def foreign_permute(self, node: ast.Call, name: str, args) -> Value:
        """A permuted numpy array: not a tensor, but `torch.from_numpy`/`torch.tensor` keep its
        strides (measured: `torch.tensor(a.T)` is non-contiguous)."""

        call = Call(name, UNKNOWN_TENSOR, list(args), {}, self.origin(node))
        result = views.transpose(call) if name == "swapaxes" else views.permute(call)
        return result if result.noncontiguous else Tensor(Kind.PERMUTED, None, call.origin,
                                                          min_rank=2)

    def emit_method_sink(self, kind: str, node: ast.Call, func: ast.Attribute, tensor: Tensor,
                         args, kwargs) -> None:
        if not self.sinks.wants(kind):
            return
        if kind == "view":
            dtype = next((a.qualname for a in args if isinstance(a, Ref) and a.qualname in DTYPES),
                         None)
            if "dtype" in kwargs:  # `view(dtype=...)`: by dtype even where it is not known
                dtype = kwargs["dtype"].qualname if isinstance(kwargs["dtype"], Ref) else \
                    next(ast.unparse(k.value) for k in node.keywords if k.arg == "dtype")
            sizes, led = None, False
            if func.attr != "view":
                sizes = _other_sizes(args)
            elif not dtype:
                sizes = Call(func.attr, tensor, args, kwargs).sizes(0, "size")
                if sizes is None:  # `x.view(*batch, d)`: the sizes after x's lead, if its own
                    sizes = with_lead(tensor, None, args)
                    led = sizes is not None
            self.sinks.record(ViewSink, node, func.value, tensor, func.attr, dtype=dtype,
                              sizes=tuple(sizes) if sizes is not None else None,
                              owner=self.size_owner(func.value, short=False), led=led)
        elif kind == "device_move":
            self.sinks.record(DeviceMoveSink, node, func.value, tensor, func.attr,
                              device=self.moves_device(node, func.attr, args, kwargs),
                              memory_format=Call(func.attr, tensor, args, kwargs).memory_format())
        elif kind == "contiguous_call":
            self.sinks.record(ContiguousCallSink, node, func.value, tensor, func.attr,
                              memory_format=Call(func.attr, tensor, args, kwargs).memory_format())
        else:
            self.sinks.record(RECORDS[kind], node, func.value, tensor, func.attr)

    def moves_device(self, node: ast.Call, name: str, args, kwargs) -> Optional[bool]:
        if name in ("cuda", "cpu"):
            return True
        if "device" in kwargs:
            return True
        if not args:
            return False
        # the words of the argument as the code spells it (`self.device`, `x.dtype`), where
        # it spells it shortly: a long one is not read (nested calls would read each other's)
        first = args[0]
        text = (self.program.short_text(node.args[0]) or "") if node.args else ""
        if isinstance(first, Ref) and first.qualname in DTYPES:
            return False
        if isinstance(first, Const) and isinstance(first.value, str):
            return True
        if isinstance(first, Tensor):
            return True
        if "dtype" in text:
            return False
        return True if any(word in text.lower() for word in ("device", "cuda", "dev", "gpu",
                                                               "rank")) else None


def _other_sizes(args) -> Optional[list]:
    other = args[0] if args else None
    if isinstance(other, Tensor) and other.geometry is not None:
        return list(other.geometry.sizes)
    return None


MAX_ITEMS = 16  # longer lists are summarised by the join of their items


def grown(items: Seq, name: str, args) -> Seq:
    """The list after `append(v)`, `extend(seq)` or `insert(i, v)`."""
    if name == "insert":
        added = args[1] if len(args) > 1 else OPAQUE
        return Seq(each=Seq(((items.items or ()) + (added,))).element()) if items.items is \
            not None else Seq(each=join(items.element(), added))
    if name == "extend":
        more = args[0]
        if isinstance(more, Seq) and more.items is not None and items.items is not None and \
                len(items.items) + len(more.items) <= MAX_ITEMS:
            return Seq(items.items + more.items)
        element = more.element() if isinstance(more, Seq) else OPAQUE
        return Seq(each=element if items.items == () else join(items.element(), element))
    added = args[0]
    if items.items is not None and len(items.items) < MAX_ITEMS:
        return Seq(items.items + (added,))
    return Seq(each=join(items.element(), added))


def contiguous_stride(tensor: Tensor, dim: Value) -> IntVal:
    """`x.stride(d)` of a contiguous tensor of literal sizes: the product of the later sizes."""
    geometry = tensor.geometry
    at = dim.size[0] if isinstance(dim, IntVal) and dim.size and not dim.size[1] else None
    if geometry is None or at is None or not -geometry.rank <= at < geometry.rank or \
            geometry != Geometry.contiguous(geometry.sizes):  # size-1 dims may be anywhere
        return IntVal(None)
    later = geometry.sizes[at % geometry.rank + 1:]
    if any(s is None or s[1] for s in later):
        return IntVal(None)
    total = 1
    for size in later:
        total *= size[0]
    return IntVal(literal(total))
