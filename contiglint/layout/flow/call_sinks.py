"""The sinks a call records for its arguments: a catalogue function's argument sinks (a
collective's tensors, `torch.save`'s items, ...) and a compiled extension's unknown contract.
A mixin of `Frame`, through `CallMixin` (calls.py)."""
from __future__ import annotations

import ast

from contiglint.catalogue.collectives import keywords as collective_keywords
from contiglint.layout.sinks.records import RECORDS, CollectiveSink, SaveSink
from contiglint.layout.model.values import OPAQUE, Seq, Tensor, Value

COLLECTIVE_KEYWORDS = collective_keywords()


class CallSinkMixin:
    def emit_extension_call(self, node: ast.Call) -> bool:
        """`ext.fwd(x)` where `ext` was built by cpp_extension.load or imported as a compiled
        module: report its tensor arguments (the call itself is opaque)."""
        func = node.func
        if not (isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) and
                func.value.id in self.program.extension_names and
                not (self.env and func.value.id in self.env and self.function is not None)):
            return False
        args, kwargs = self.arguments(node)
        made_contiguous = bool(self.program.extension_names[func.value.id])
        self.contracts.emit_unknown(node, self.program.unparse(func), args, kwargs,
                                    "a function of the compiled extension module",
                                    made_contiguous=made_contiguous)
        return True

    def emit_argument_sinks(self, spec, node: ast.Call, qualname: str, args, kwargs) -> None:
        if spec.kind == "collective":
            for position, (argument, value) in enumerate(zip(node.args, args)):
                if isinstance(value, (Tensor, Seq)) or value is OPAQUE:
                    self.sinks.record(CollectiveSink, node, argument, value, qualname,
                                      position=position)
            for keyword in node.keywords:
                if keyword.arg in COLLECTIVE_KEYWORDS:
                    self.sinks.record(CollectiveSink, node, keyword.value, kwargs[keyword.arg],
                                      qualname, position=keyword.arg)
            return
        argument, value = None, None
        if spec.argument < len(node.args):
            argument, value = node.args[spec.argument], args[spec.argument]
        elif spec.keyword:
            keyword = next((k for k in node.keywords if k.arg == spec.keyword), None)
            if keyword is not None:
                argument, value = keyword.value, kwargs[spec.keyword]
        if argument is not None:
            self.sinks.record(RECORDS[spec.kind], node, argument, value, qualname)
            if spec.kind == "save":
                self.emit_saved_items(node, argument, value, qualname)

    def emit_saved_items(self, node: ast.Call, argument: ast.expr, value: Value,
                         qualname: str) -> None:
        """`torch.save({"w": w[:k]}, f)`: each item of a literal dict, list or tuple is saved."""
        if isinstance(argument, ast.Dict):
            items = [(item, self.evaluate(item)) for item in argument.values]
        elif isinstance(argument, (ast.List, ast.Tuple)) and isinstance(value, Seq) and \
                value.items is not None and len(value.items) == len(argument.elts):
            items = list(zip(argument.elts, value.items))
        else:
            return
        for item, item_value in items:
            self.sinks.record(SaveSink, node, item, item_value, qualname)
            self.emit_saved_items(node, item, item_value, qualname)
