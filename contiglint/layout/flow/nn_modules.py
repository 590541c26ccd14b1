"""The `nn` modules the flow pass knows: what a module built with given arguments (`nn.Conv2d(3,
8, 3)`) returns for a tensor, and its parameters' layouts."""
from __future__ import annotations


from contiglint.layout.model.frozen import evolve
from contiglint.layout.model.geometry import Geometry
from contiglint.layout.model.window_transfers import UNREAD, window_argument, window_sizes
from contiglint.catalogue import ops as catalogue
from contiglint.catalogue import shapes
from contiglint.layout.model.values import (
    OPAQUE,
    UNKNOWN_TENSOR,
    Const,
    IntVal,
    Ref,
    Seq,
    Tensor,
    Value,
)


CONV_RANK = shapes.CONV_RANK


def module_config(qualname: str, args, kwargs) -> tuple:
    """What an nn module's call reads of its constructor arguments: the literal bool and str
    keywords (`batch_first=True`), and the argument the catalogue names for it (an adaptive
    pool's `output_size`, positional or keyword) as its abstract value."""
    config = {k: v.value for k, v in kwargs.items()
              if isinstance(v, Const) and isinstance(v.value, (bool, str))}
    name = catalogue.CONSTRUCTOR_SIZES.get(qualname)
    given = kwargs.get(name, args[0] if args else None) if name else None
    if isinstance(given, (IntVal, Seq)):
        config[name] = given
    for role in ("width", "heads", "kernel", "stride", "padding", "dilation"):
        # the sizes the catalogue says give its output's (a window argument given as a
        # variable is kept as unread, so that no default stands in for it)
        value = window_argument(
            shapes.module_argument(qualname.rsplit(".", 1)[-1], role, args, kwargs))
        if value is not None and (role not in ("width", "heads") or
                                  value not in (UNREAD, "same", "valid")):
            config[role] = value
    return tuple(sorted(config.items()))


def module_width(config: tuple):
    """The output width (`out_features`, `out_channels`, ...) a module's config holds."""
    return dict(config).get("width")


def module_output(qualname: str, result: Value, width, source: Value = None,
                  config: tuple = ()) -> Value:
    """Give a Linear/Conv output its known rank and `out` size, so that a literal size-1
    channel (a vocoder's `Conv1d(c, 1, 7)`) is known to hide transposes, as torch ignores it."""
    if not isinstance(result, Tensor):
        return result
    last = qualname.rsplit(".", 1)[-1]
    dim = None
    if last.startswith("Conv") and last[-2:] in CONV_RANK:
        rank = CONV_RANK[last[-2:]]
        if result.geometry is None and result.kind.value in ("contiguous", "unknown"):
            if isinstance(source, Tensor) and not _free_input(source):
                # an input of unknown rank that an op made (`x.unsqueeze(2)`: a size-1 dim
                # at every rank): N + 1 dims (unbatched) or N + 2, and sizes the op made,
                # which the output may keep (a kernel of 1 keeps a size-1 dim)
                return evolve(result, min_rank=max(result.min_rank, rank - 1), lost=True)
            # batched, as callers pass: the input's sizes are a caller's free choice, and so
            # are the output's
            result = evolve(result, geometry=Geometry.contiguous([None] * rank))
        if isinstance(source, Tensor) and source.rank == rank == result.rank and \
                result.geometry.sizes[0] is None:  # a batch: its size carries through
            result = evolve(result, geometry=result.geometry.with_axis(
                0, size=source.geometry.sizes[0]))
        if isinstance(source, Tensor) and source.rank == rank == result.rank and \
                not last.startswith("ConvTranspose"):
            geometry = result.geometry
            for dim, size in enumerate(window_sizes(dict(config), source.geometry.sizes[2:],
                                                    rank - 2), start=2):
                geometry = geometry.with_axis(dim, size=size)
            result = evolve(result, geometry=geometry)
        dim = 1
    elif last in ("Linear", "LazyLinear"):
        dim = -1
        rank = source.rank if isinstance(source, Tensor) else None
        if result.geometry is not None and rank == result.geometry.rank:
            result = evolve(result, geometry=Geometry.contiguous(
                list(source.geometry.sizes[:-1]) + [result.geometry.sizes[-1]]))
    if dim is None or width is None or result.geometry is None:
        return result
    geometry = result.geometry
    index = dim % geometry.rank
    return evolve(result, geometry=geometry.with_axis(index, size=width))


def _free_input(value: Value) -> bool:
    """A tensor of unknown rank whose sizes a caller chooses: no op made it or lost it, and
    the geometry assumed at its least rank names no size."""
    return isinstance(value, Tensor) and value.geometry is None and not value.made_by_op and \
        not value.lost and (value.assumed is None or
                            value.assumed == Geometry.contiguous([None] * value.assumed.rank))


def module_parameter(module: Ref, name: str) -> Value:
    """`.weight`/`.bias` of a torch module instance: a fresh parameter, contiguous, of the
    shape the constructor gives, for the 2-D weights that no memory-format conversion touches
    (Linear: (out, in), Embedding: (num, dim)); other modules' parameters are of unknown
    layout (a conv weight is channels_last after `model.to(memory_format=...)`)."""
    if name not in ("weight", "bias"):
        return OPAQUE
    last = module.qualname.rsplit(".", 1)[-1]
    width = module.width
    if last in ("Linear", "LazyLinear"):
        return Tensor.of(Geometry.contiguous([width, None] if name == "weight" else [width]),
                         None)
    if last == "Embedding" and name == "weight":
        return Tensor.of(Geometry.contiguous([None, width]), None)
    return UNKNOWN_TENSOR
