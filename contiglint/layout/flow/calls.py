"""Evaluating calls: torch functions, Tensor methods, nn modules, and the module's own code.

Calls to the module's own functions, classes and methods are analysed in context by `Program`
(see program.py); everything else goes through the op table (op_transfers.py), and the sink table
(sinks.py) decides which calls are reported as sinks.
"""
from __future__ import annotations

import ast

from contiglint.layout.flow.call_sinks import CallSinkMixin
from contiglint.layout.flow.named_sizes import NamedSizeMixin
from contiglint.layout.flow.nn_modules import module_config, module_output, module_width
from contiglint.catalogue import dtypes
from contiglint.catalogue import ops as catalogue, sinks
from contiglint.layout.model import op_transfers
from contiglint.layout.syntax.names import is_foreign, is_torch
from contiglint.layout.model.sizes import literal
from contiglint.catalogue.contracts import AUTOGRAD_CONTEXT_METHODS, forward_takes_context
from contiglint.catalogue.inplace import INPLACE_ACTIVATIONS, is_inplace as is_inplace_method
from contiglint.layout.sinks.records import (
    FUNCTION_SINKS,
    CallSite,
    KernelLaunchSink,
)
from contiglint.layout.model.transfer import Call
from contiglint.layout.model.values import (
    AUTOGRAD_CONTEXT,
    NOT_TENSOR,
    OPAQUE,
    UNKNOWN_TENSOR,
    Const,
    Dims,
    Function,
    Instance,
    IntVal,
    Lead,
    Mapping,
    Partial,
    Ref,
    Seq,
    Spread,
    Tensor,
    Value,
)

DTYPES = dtypes.DTYPES
ELEMENT_SIZE = dtypes.ELEMENT_SIZE
COPY_IF_NEEDED = catalogue.COPIES_IF_NEEDED
SHAPE_CONSUMERS = catalogue.SHAPE_ARGUMENTS
SIZE_LISTS = catalogue.SIZE_LISTS
PARAMETERS = frozenset(sinks.BY_KIND["parameter"].functions)  # nn.Parameter, nn.Buffer
BUILTIN_SEQUENCES = frozenset({"list", "tuple", "sorted", "reversed"})
CONTAINERS = frozenset(f"torch.nn.{name}" for name in (
    "ModuleList", "ModuleDict", "Sequential", "modules.container.ModuleList",
    "modules.container.ModuleDict", "modules.container.Sequential"))


class CallMixin(CallSinkMixin, NamedSizeMixin):
    def expr_Call(self, node: ast.Call) -> Value:
        func = node.func
        if isinstance(func, ast.Attribute):
            qualname = self.program.names.qualname(func)
            if qualname is not None and not self.shadowed(func):
                args, kwargs = self.arguments(node)
                return self.call_qualname(node, qualname, args, kwargs)
            if self.emit_extension_call(node):
                return OPAQUE
            receiver = self.evaluate(func.value)
            args, kwargs = self.arguments(node)
            return self.call_method(node, func, receiver, args, kwargs)
        if isinstance(func, ast.Subscript):
            callee = self.evaluate(func.value)
            self.evaluate(func.slice)
            args, kwargs = self.arguments(node)
            if isinstance(func.value, ast.Name) and func.value.id in self.program.kernels:
                kernel = self.program.kernel_signatures[func.value.id]
                for index, (argument, value) in enumerate(zip(node.args, args)):
                    if isinstance(value, Tensor):
                        param = kernel.params[index] if index < len(kernel.params) else None
                        self.sinks.record(KernelLaunchSink, node, argument, value, func.value.id,
                                          kernel=kernel, parameter=param)
            return OPAQUE if callee is not NOT_TENSOR else NOT_TENSOR
        if isinstance(func, ast.Name) and self.is_builtin(func.id):
            args, kwargs = self.arguments(node)
            return self.call_builtin(func.id, args)
        callee = self.evaluate(func)
        args, kwargs = self.arguments(node)
        return self.call_value(node, callee, args, kwargs)

    def shadowed(self, func: ast.Attribute) -> bool:
        """`torch.x` where a local variable named like the import hides it."""
        root = func
        while isinstance(root, ast.Attribute):
            root = root.value
        return isinstance(root, ast.Name) and self.env is not None and root.id in self.env

    def arguments(self, node: ast.Call) -> tuple[list[Value], dict[str, Value]]:
        args: list[Value] = []
        for argument in node.args:
            value = self.evaluate(argument.value if isinstance(argument, ast.Starred)
                                  else argument)
            if isinstance(argument, ast.Starred):
                if isinstance(value, Dims) and value.sizes is not None:
                    args.extend(IntVal(size) for size in value.sizes)
                elif isinstance(value, Seq) and value.items is not None:
                    args.extend(value.items)
                else:
                    args.append(Spread(each=self.iterate(value),
                                       of=value if isinstance(value, Lead) else None))
            else:
                args.append(value)
        kwargs = {k.arg: self.evaluate(k.value) for k in node.keywords if k.arg}
        for keyword in node.keywords:
            if keyword.arg is None:
                self.evaluate(keyword.value)
        return args, kwargs

    def site(self, node: ast.AST, callee: str) -> CallSite:
        start = self.program.source.start(node)
        function = self.function
        return CallSite(start.line, start.column, callee,
                        (function.lineno, function.end_lineno) if function is not None else None)

    # --- builtins --------------------------------------------------------------------------------
    def is_builtin(self, name: str) -> bool:
        return name in ("len", "range", "int", "float", "str", "bool", "isinstance", "print",
                        "list", "tuple", "sorted", "reversed", "zip", "enumerate", "min", "max",
                        "abs", "sum", "getattr", "hasattr", "setattr", "super", "type", "id",
                        "iter", "next", "map", "filter", "any", "all", "round", "dict", "set") \
            and not (self.env and name in self.env) and name not in self.program.functions \
            and name not in self.program.globals

    def call_builtin(self, name: str, args: list[Value]) -> Value:
        if name in ("len", "int", "round"):
            return IntVal(None)
        if name in BUILTIN_SEQUENCES and args:
            value = args[0]
            if isinstance(value, Seq):
                return value
            if isinstance(value, Dims):
                return Seq(tuple(IntVal(s) for s in value.sizes)) if value.sizes else \
                    Seq(each=IntVal(None))
            return Seq(each=self.iterate(value))
        if name == "range":
            return Seq(each=IntVal(None))
        if name == "zip":
            lengths = {len(a.items) if isinstance(a, Seq) and a.items is not None else None
                       for a in args}
            if args and None not in lengths and len(lengths) == 1:
                return Seq(tuple(Seq(group) for group in zip(*(a.items for a in args))))
            return Seq(each=Seq(tuple(self.iterate(a) for a in args)))
        if name == "enumerate" and args:
            if isinstance(args[0], Seq) and args[0].items is not None:
                return Seq(tuple(Seq((IntVal(literal(i)), item))
                                 for i, item in enumerate(args[0].items)))
            return Seq(each=Seq((IntVal(None), self.iterate(args[0]))))
        if name == "super" and self.self_class:
            return Instance(f"<super>{self.self_class}")
        if name in ("min", "max", "abs", "sum") and args and isinstance(args[0], IntVal):
            return IntVal(None)
        return OPAQUE if name in ("getattr", "next", "iter", "map", "filter") else NOT_TENSOR

    # --- calling values --------------------------------------------------------------------------
    def call_value(self, node: ast.Call, callee: Value, args, kwargs,
                   chained: bool = False) -> Value:
        if isinstance(callee, Function):
            definition = self.program.functions.get(callee.key)
            shift = int(definition is not None and self.program.receiver(
                definition, callee.key, callee.bound) is not None)
            self.contracts.emit_function_call(node, callee.key, args, kwargs, shift)
            return self.program.call(callee.key, callee.bound, args, kwargs,
                                     self.site(node, callee.key), self.chain)
        if isinstance(callee, Partial):
            bound = ast.copy_location(ast.Call(
                node.func, list(callee.call.args) + list(node.args),
                [k for k in callee.call.keywords if k.arg not in kwargs] + list(node.keywords)),
                node)
            return self.call_value(bound, callee.func, list(callee.args) + list(args),
                                   {**dict(callee.kwargs), **kwargs})
        if isinstance(callee, Ref) and callee.qualname.startswith("<class>"):
            return self.construct(node, callee.qualname[len("<class>"):], args, kwargs)
        if isinstance(callee, Seq) and callee.chained:  # nn.Sequential: one module after another
            value = args[0] if args else OPAQUE
            for position, module in enumerate(callee.items or ()):
                value = self.call_value(node, module, [value], {}, chained=position > 0)
            return value if callee.items is not None else OPAQUE
        if isinstance(callee, Ref) and callee.instance:
            result = self.call_module(node, callee.qualname, args, kwargs, callee.width,
                                      callee.config)
            last = callee.qualname.rsplit(".", 1)[-1]
            if ("inplace", True) in callee.config and last in INPLACE_ACTIVATIONS and \
                    node.args and not chained and not isinstance(node.args[0], ast.Starred):
                self.sinks.inplace(node, node.args[0], args[0], f"nn.{last}(inplace=True)")
                return args[0]  # the input itself, written
            return result
        if isinstance(callee, Ref):
            return self.call_qualname(node, callee.qualname, args, kwargs)
        if isinstance(callee, Instance):
            info = self.program.classes.get(callee.cls)
            key = info.method("forward", self.program.classes) or \
                info.method("__call__", self.program.classes) if info else None
            if key:
                self.contracts.emit_function_call(node, key, args, kwargs, 1)
                return self.program.call(key, callee, args, kwargs, self.site(node, key),
                                         self.chain)
            return UNKNOWN_TENSOR if info and self.is_module_class(info) else OPAQUE
        return NOT_TENSOR if callee is NOT_TENSOR else OPAQUE

    def construct(self, node: ast.Call, cls: str, args, kwargs) -> Value:
        instance = Instance(cls)
        info = self.program.classes.get(cls)
        if info is not None:
            key = info.method("__init__", self.program.classes)
            if key and any(isinstance(a, Tensor) and a.noncontiguous
                           for a in list(args) + list(kwargs.values())):
                self.program.call(key, instance, args, kwargs, self.site(node, cls), self.chain)
        return instance

    def is_module_class(self, info) -> bool:
        return any("Module" in base or base in self.program.classes for base in info.bases)

    def call_module(self, node: ast.Call, qualname: str, args, kwargs,
                    width=None, config=()) -> Value:
        """Calling an nn module instance: `self.proj(x)` where `self.proj = nn.Linear(...)`."""
        op = op_transfers.module(qualname)
        if op is None:
            return UNKNOWN_TENSOR if is_torch(qualname) else OPAQUE
        this = args[0] if args else OPAQUE
        config = dict(config)
        if len(node.args) >= 3 and len({ast.dump(a) for a in node.args[:3]}) == 1:
            config["self_attention"] = True  # `mha(x, x, x)`: one tensor three times
        result = op.transfer(Call(qualname, self.as_tensor(this), args[1:], kwargs,
                                  self.origin(node), config))
        return module_output(qualname, result, width, this, tuple(sorted(config.items())))

    def call_qualname(self, node: ast.Call, qualname: str, args, kwargs) -> Value:
        self.contracts.emit_qualname_contract(node, qualname, args, kwargs)
        if qualname.startswith("<class>"):
            return self.call_class_attribute(node, qualname[len("<class>"):], args, kwargs)
        if qualname == "functools.partial" and args and not any(
                isinstance(a, ast.Starred) for a in node.args[1:]) and all(
                k.arg for k in node.keywords):
            call = ast.Call(node.func, node.args[1:], node.keywords)
            return Partial(args[0], tuple(args[1:]), tuple(sorted(kwargs.items())), call)
        for spec in FUNCTION_SINKS.get(qualname, ()):
            self.emit_argument_sinks(spec, node, qualname, args, kwargs)
        out = next((k.value for k in node.keywords if k.arg == "out"), None)
        if out is not None and is_torch(qualname):  # `torch.add(a, b, out=t)` writes into t
            self.sinks.inplace(node, out, kwargs["out"], f"{qualname}(out=)")
        written = self.written_argument(node, qualname, kwargs)
        if written is not None:
            how = f"{qualname}(inplace=True)" if "inplace" in kwargs else qualname
            self.sinks.inplace(node, written, args[0], how)
            if isinstance(args[0], Tensor):
                return args[0]  # the input itself, written
        if qualname in PARAMETERS:
            data = args[0] if args else kwargs.get("data", OPAQUE)
            return data if isinstance(data, Tensor) else UNKNOWN_TENSOR
        if qualname in CONTAINERS:
            return self.module_container(qualname, args, kwargs)
        if qualname == "torch.device":
            return Const("<device>")
        if qualname in DTYPES:
            return NOT_TENSOR
        op = op_transfers.function(qualname)
        if op is not None and catalogue.function(qualname).transfer == "function_factory":
            args = self.named_size_arguments(node, args)  # torch.randn(B, N, C)
        if op is not None and qualname.rsplit(".", 1)[-1] in SIZE_LISTS:
            args = self.named_size_lists(node, args)  # torch.split(x, [1, B - 1])
        if op is not None and catalogue.function(qualname).transfer == "rearrange":
            kwargs = {k.arg: IntVal(self.named_size(k.value)) if kwargs[k.arg] is OPAQUE and
                      isinstance(k.value, (ast.Name, ast.Attribute, ast.BinOp))
                      else kwargs[k.arg] for k in node.keywords if k.arg}  # `h=heads`
        if op is not None:
            this = args[0] if args else OPAQUE
            first = node.args[0] if node.args and not isinstance(node.args[0], ast.Starred) \
                else None
            if qualname == "torch.einsum":  # the operand, not the subscripts, owns the sizes
                first = node.args[1] if len(node.args) == 2 and \
                    not isinstance(node.args[1], ast.Starred) else None
            return op.transfer(Call(qualname, self.as_tensor(this) if not isinstance(
                this, (Seq, IntVal, Const, Dims)) else this, args[1:], kwargs, self.origin(node),
                owner=self.size_owner(first) if first is not None else None))
        if op_transfers.module(qualname) is not None or self.is_torch_module_class(qualname):
            config = module_config(qualname, args, kwargs)
            return Ref(qualname, True, module_width(config), config)
        if qualname in ("numpy.transpose", "numpy.swapaxes") and len(args) > 1:
            return self.foreign_permute(node, qualname.split(".")[-1], args[1:])
        if is_foreign(qualname):
            return NOT_TENSOR
        if is_torch(qualname):
            last = qualname.rsplit(".", 1)[-1]
            if last.startswith("is_") or last in catalogue.NOT_TENSOR_FUNCTIONS:
                return NOT_TENSOR
            return UNKNOWN_TENSOR if qualname.count(".") <= 3 else OPAQUE
        return OPAQUE

    def written_argument(self, node: ast.Call, qualname: str, kwargs) -> ast.expr | None:
        """The argument a torch function writes into: `torch.relu_(x)` (the in-place
        spellings of Tensor methods), `F.relu(x, inplace=True)`."""
        if not node.args or isinstance(node.args[0], ast.Starred) or not is_torch(qualname):
            return None
        owner, _, last = qualname.rpartition(".")
        if owner == "torch" and is_inplace_method(last):
            return node.args[0]
        inplace = kwargs.get("inplace")
        if owner == "torch.nn.functional" and last in INPLACE_ACTIVATIONS and \
                isinstance(inplace, Const) and inplace.value is True:
            return node.args[0]
        return None

    def call_class_attribute(self, node: ast.Call, qualname: str, args, kwargs) -> Value:
        """`Cls.apply(x)` of an autograd Function runs `Cls.forward(ctx, x)`; `Cls.m(x)` runs a
        static or class method: all analysed in context, like any call to the module's code."""
        cls, _, name = qualname.rpartition(".")
        info = self.program.classes.get(cls)
        if info is None:
            return OPAQUE
        if name == "apply":
            key = info.method("forward", self.program.classes)
            if key is None:
                return OPAQUE
            methods = {name for name in AUTOGRAD_CONTEXT_METHODS  # its own or inherited
                       if info.method(name, self.program.classes)}
            context = [AUTOGRAD_CONTEXT] if forward_takes_context(methods) else []
            return self.program.call(key, None, context + list(args), kwargs,
                                     self.site(node, f"{cls}.apply"), self.chain)
        key = info.method(name, self.program.classes)
        if key is None:
            return OPAQUE
        bound = self.program.receiver(self.program.functions[key], key, OPAQUE)
        if bound is OPAQUE:  # a plain method called on the class: `Cls.m(obj, x)`
            bound = None
        return self.program.call(key, bound, args, kwargs, self.site(node, key), self.chain)

    def module_container(self, qualname: str, args, kwargs) -> Value:
        """nn.ModuleList([...]) is the list of its modules, nn.ModuleDict({...}) the mapping,
        nn.Sequential(a, b) the chain that calls them in turn (an OrderedDict argument, or
        modules added later, are not followed)."""
        kind = qualname.rsplit(".", 1)[-1]
        given = args[0] if args else kwargs.get("modules", Seq(()))
        if kind == "ModuleDict":
            return given if isinstance(given, Mapping) else Mapping((), (), OPAQUE)
        if kind == "Sequential":
            known = all(isinstance(a, (Ref, Instance, Seq)) for a in args)
            return Seq(tuple(args) if known else None, OPAQUE, chained=True)
        return given if isinstance(given, Seq) else Seq(each=OPAQUE)

    def is_torch_module_class(self, qualname: str) -> bool:
        last = qualname.rsplit(".", 1)[-1]
        return qualname.startswith("torch.nn.") and last[:1].isupper() and \
            not qualname.startswith("torch.nn.functional")
