"""Subscripts and sizes: `x[:, 1:]`, `x.shape[0]`, `x.size(i)`, and naming unknown sizes."""
from __future__ import annotations

import ast
from typing import Optional

from contiglint.layout.model.frozen import evolve
from contiglint.layout.model.geometry import Geometry
from contiglint.layout.model import op_transfers
from contiglint.layout.model.indexing import Index
from contiglint.layout.flow.environments import sizes_at_one
from contiglint.layout.model.sizes import literal, made_symbol, size_name, symbol
from contiglint.layout.model.values import (
    NOT_TENSOR,
    Kind,
    OPAQUE,
    Const,
    Dims,
    IntVal,
    Mapping,
    Seq,
    Tensor,
    Value,
)


class SubscriptMixin:
    def expr_Subscript(self, node: ast.Subscript) -> Value:
        value = node.value
        if isinstance(node.slice, ast.Slice):
            lead = self.leading_sizes(node)  # `x.shape[:-2]` of a tensor of unknown rank
            if lead is not None:
                return lead
        if isinstance(value, ast.Attribute) and value.attr == "shape" and \
                not isinstance(node.slice, ast.Slice):
            owner = self.evaluate(value.value)
            if isinstance(owner, Tensor) or owner is OPAQUE:
                position = self.literal_int(node.slice)
                if position is not None:
                    return self.dim_size(value.value, owner, position)
        container = self.evaluate(node.value)
        if isinstance(container, Mapping):
            key = self.evaluate(node.slice)
            if isinstance(key, Const):
                return container.get(key.value)
            if isinstance(key, IntVal) and key.size is not None and not key.size[1]:
                return container.get(key.size[0])
            return container.element()
        if isinstance(container, (Seq, Dims)):
            return self.index_sequence(container, node.slice)
        if isinstance(container, Tensor) or container is OPAQUE and self.looks_like_tensor(node):
            items = self.index_items(node.slice)
            return op_transfers.index(self.as_tensor(container), items, self.origin(node),
                                      self.size_owner(node.value))
        self.evaluate(node.slice)
        return OPAQUE if container is OPAQUE else NOT_TENSOR if container is NOT_TENSOR \
            else OPAQUE

    def looks_like_tensor(self, node: ast.Subscript) -> bool:
        """An unknown container indexed with slices, None or a list is taken for a tensor (a
        list index is advanced indexing: a list or a dict raises on it, and `x[[0]]` of a
        parameter is a gather, not a caller's tensor of free sizes)."""
        elements = node.slice.elts if isinstance(node.slice, ast.Tuple) else [node.slice]
        return any(isinstance(e, (ast.Slice, ast.List)) or (isinstance(e, ast.Constant) and
                                                            e.value in (None, Ellipsis))
                   for e in elements)

    def index_sequence(self, container: Value, index: ast.expr) -> Value:
        if isinstance(index, ast.Slice):
            for part in (index.lower, index.upper, index.step):
                self.evaluate(part)
            if isinstance(container, Dims):
                lower = self.literal_int(index.lower)
                upper = self.literal_int(index.upper)
                if container.sizes is not None and index.step is None and \
                        (index.lower is None or lower is not None) and \
                        (index.upper is None or upper is not None):
                    return Dims(container.sizes[lower:upper])
                return Dims(None)
            if container.items is not None:
                lower, upper = self.literal_int(index.lower), self.literal_int(index.upper)
                if (index.lower is None or lower is not None) and \
                        (index.upper is None or upper is not None) and index.step is None:
                    return Seq(container.items[lower:upper])
            return Seq(each=container.element())
        position = self.evaluate(index)
        at = position.size[0] if isinstance(position, IntVal) and position.size and \
            not position.size[1] else None
        if isinstance(container, Dims):
            if container.sizes is not None and at is not None and \
                    -len(container.sizes) <= at < len(container.sizes):
                return IntVal(container.sizes[at])
            return IntVal(None)
        return container.item(at) if at is not None else container.element()

    def dim_size(self, owner: ast.expr, tensor: Value, index: int, called: bool = False) -> IntVal:
        """`x.size(i)` / `x.shape[i]`: the known size, or a symbol that is also written back
        into `x`'s geometry, so a later `x.view(x.size(0), -1)` can be matched dim by dim."""
        geometry = tensor.geometry if isinstance(tensor, Tensor) else None
        assumed = tensor.witness_geometry if isinstance(tensor, Tensor) else None
        if geometry is None and assumed is not None and assumed.rank == tensor.min_rank and \
                -assumed.rank <= index < assumed.rank and assumed.axes[index].size is not None:
            # the size at the least rank, where the geometry is assumed (`x[:, ::2]` of x of
            # N columns has (N + 1) // 2 there): a fresh name would be a free size that no
            # input gives, where a witness at that rank names both
            return IntVal(assumed.axes[index].size)
        if isinstance(tensor, Tensor) and tensor.made_sizes and (
                geometry is None or not -geometry.rank <= index < geometry.rank
                or geometry.axes[index].size is None):
            # a size an op made that the model lost is no free name: one a witness may give
            # no value of its own (sizes.made_symbol), and none at all where it cannot vary
            if geometry is None:
                self.states_rank(owner, tensor, index + 1 if index >= 0 else -index, called)
            if not self.takes_arguments():
                return IntVal(None)
            made = made_symbol(size_name(self.size_owner(owner, short=False), index))
            if geometry is not None and -geometry.rank <= index < geometry.rank:
                self.writes_size(owner, tensor, geometry, index % geometry.rank, made)
            return IntVal(made)
        if geometry is None or not -geometry.rank <= index < geometry.rank:
            size = symbol(size_name(self.size_owner(owner, short=False), index))
            if size[1][0] in sizes_at_one(self.env):
                size = literal(1)  # a test on the path showed it is 1 (`v.size(3) <= 1` of a
                # tensor whose dim 3 is this one)
            if geometry is None and isinstance(tensor, Tensor):
                self.states_rank(owner, tensor, index + 1 if index >= 0 else -index, called)
                self.names_assumed_size(owner, tensor, index, size)
            return IntVal(size)
        index %= geometry.rank
        size = geometry.axes[index].size
        if size is not None:
            return IntVal(size)
        size = symbol(size_name(self.size_owner(owner, short=False), index))
        self.writes_size(owner, tensor, geometry, index, size)
        return IntVal(size)

    def takes_arguments(self) -> bool:
        """Whether a caller chooses anything here: in a function of no parameters (or code at
        the top of a module) every size comes from the code's own literals, and one an op
        made is a number the model lost (a mask's count of a tensor of 4), not one that
        varies."""
        spec = getattr(self.function, "args", None)
        return spec is not None and bool(spec.posonlyargs or spec.args or spec.vararg or
                                         spec.kwonlyargs or spec.kwarg)

    def writes_size(self, owner: ast.expr, tensor: Tensor, geometry: Geometry, index: int,
                    size) -> None:
        """Dim `index` of `owner` (bound to `tensor`) is `size` from here on."""
        key = self.name_key(owner)
        if key is not None and self.env is not None and self.env.get(key) == tensor:
            self.env[key] = evolve(tensor, geometry=geometry.with_axis(index, size=size))

    def states_rank(self, owner: ast.expr, tensor: Tensor, rank: int, called: bool) -> None:
        """`x.size(2)` raises unless x has at least 3 dims: from here on x's rank is known to
        be at least that (the rank at which the model assumes x's dims). A `.size(i)` call
        also says that a value of unknown type is a tensor (a numpy array's size is an int)."""
        key = self.name_key(owner)
        if key is None or self.env is None or tensor.min_rank >= rank:
            return
        current = self.env.get(key)
        if current == tensor or (called and current is OPAQUE):
            self.env[key] = evolve(tensor, min_rank=rank)

    def names_assumed_size(self, owner: ast.expr, tensor: Tensor, index: int, size) -> None:
        """`x.size(i)` of a tensor whose geometry is only assumed: the assumed geometry's dim
        i is that size, so that what is made of x (`x.permute(1, 0)`) keeps the name."""
        key = self.name_key(owner)
        if key is None or self.env is None or index < 0 or tensor.noncontiguous:
            return
        current = self.env.get(key)
        if not isinstance(current, Tensor) or current.geometry is not None:
            return
        if current.assumed is None and current.kind is Kind.UNKNOWN and \
                (current.partial is not None or current.lost):
            return  # a cut of unknown extent, a lost layout: not assumed (as `apply_view`)
        assumed = current.assumed
        rank = max(current.min_rank, index + 1)
        if assumed is None:
            assumed = Geometry.contiguous([None] * rank)
        elif assumed.rank < rank and assumed == Geometry.contiguous(assumed.sizes):
            assumed = Geometry.contiguous(list(assumed.sizes) + [None] * (rank - assumed.rank))
        if assumed.rank <= index or assumed.axes[index].size is not None:
            return
        self.env[key] = evolve(current, assumed=assumed.with_axis(index, size=size),
                               min_rank=max(current.min_rank, assumed.rank))

    def named_sizes(self, owner: ast.expr, tensor: Tensor) -> Tensor:
        """Name the unknown sizes of `owner` as `owner.size(i)`, the symbols `dim_size` gives
        to `owner.size(i)` / `owner.shape[i]` in the arguments of the same call."""
        geometry = tensor.geometry
        if geometry is None or all(a.size is not None for a in geometry.axes) or \
                tensor.made_sizes and not self.takes_arguments():
            return tensor
        text = self.size_owner(owner)
        if text is None:
            return tensor
        name = made_symbol if tensor.made_sizes else symbol
        for index, axis in enumerate(geometry.axes):
            if axis.size is None:
                geometry = geometry.with_axis(index, size=name(size_name(text, index)))
        return evolve(tensor, geometry=geometry)

    def literal_int(self, node: Optional[ast.expr]) -> Optional[int]:
        return None if node is None else literal_of(self.evaluate(node))

    def index_items(self, node: ast.expr) -> list[Index]:
        elements = node.elts if isinstance(node, ast.Tuple) else [node]
        items = []
        for element in elements:
            if isinstance(element, ast.Slice):
                lower = self.literal_int(element.lower)
                upper_value = self.evaluate(element.upper) if element.upper is not None else None
                upper = literal_of(upper_value)
                step = self.literal_int(element.step) if element.step is not None else 1
                # a start other than a literal 0, or any stop, may cut the dim
                bounded = (element.lower is not None and lower != 0) or element.upper is not None
                length = None
                if upper is not None and upper >= 0 and (lower or 0) >= 0 and \
                        (element.lower is None or lower is not None):
                    length = literal(max(upper - (lower or 0), 0))
                if lower is not None and lower < 0 and element.upper is None and step == 1:
                    length = literal(-lower)  # `x[:, -1:]` keeps the last element
                if element.lower is None and element.upper is not None and upper is None:
                    length = upper_value.size if isinstance(upper_value, IntVal) else None
                    if upper_value is OPAQUE and isinstance(element.upper, (ast.Name,
                                                                            ast.Attribute)):
                        # as a view target names it
                        length = symbol(self.program.unparse(element.upper))
                lower_node = element.lower
                if element.upper is None and step == 1 and isinstance(lower_node, ast.UnaryOp) \
                        and isinstance(lower_node.op, ast.USub) and isinstance(
                            lower_node.operand, (ast.Name, ast.Attribute)) and \
                        self.evaluate(lower_node.operand) is OPAQUE:
                    # `x[..., -k:]` keeps k
                    length = symbol(self.program.unparse(lower_node.operand))
                items.append(Index("slice", lower, upper, step if step is not None else 2,
                                   bounded, length))
                continue
            if isinstance(element, ast.Constant) and element.value is None:
                items.append(Index("none"))
                continue
            if isinstance(element, ast.Constant) and element.value is Ellipsis:
                items.append(Index("ellipsis"))
                continue
            value = self.evaluate(element)
            if isinstance(value, IntVal):
                items.append(Index("int"))
            elif isinstance(value, Seq) and element is node and \
                    not isinstance(element, (ast.List, ast.ListComp)):
                # the whole index is a name for a tuple (`x[slices]`: one index per dim,
                # slices or ints) or for a list (advanced): which, the value does not say.
                # Within a tuple of indices (`x[:, perm]`) any sequence is advanced.
                items.append(Index("unknown"))
            elif isinstance(value, Seq) and value.items is not None and value.items and \
                    all(isinstance(i, IntVal) for i in value.items):
                items.append(Index("advanced", length=literal(len(value.items)), ndim=1))
            elif isinstance(value, Tensor) and value.rank == 1 and value.dtype == "bool":
                # as many as the mask has true: of a mask of at most one element, no more
                # (0 or 1 alike for a layout: neither dim has a stride that matters)
                bound = value.geometry.sizes[0]
                items.append(Index("advanced", ndim=1, length=bound if bound is not None and
                                   not bound[1] and bound[0] <= 1 else None))
            elif isinstance(value, Tensor) and value.rank == 1:
                items.append(Index("advanced", length=value.geometry.sizes[0], ndim=1))
            elif isinstance(value, (Tensor, Seq)):
                items.append(Index("advanced"))
            elif isinstance(value, Const) and isinstance(value.value, bool):
                items.append(Index("advanced"))
            else:
                items.append(Index("unknown"))
        return items


def literal_of(value: Optional[Value]) -> Optional[int]:
    """The integer a value is known to be, if any."""
    if isinstance(value, IntVal) and value.size is not None and not value.size[1]:
        return value.size[0]
    return None
