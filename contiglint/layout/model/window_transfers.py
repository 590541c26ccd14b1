"""Transfers of the ops that slide a window over spatial dims or resize them: pooling,
normalization, padding, interpolation, pixel (un)shuffle and convolution. The layout is the
input's channels_last or contiguous (`transfer.keep_channels_last`, `transfer.convolution`);
the sizes follow the Conv formula (`window_sizes`, facts.POOLS and facts.conv_size). Measured on
torch 2.13, CPU, and on CUDA where the device changes the layout (facts.DEVICE_LAYOUTS); the
table test (tests/test_op_table.py) runs each against torch."""
from __future__ import annotations

from typing import Optional, Sequence

from contiglint.catalogue import shapes as facts
from contiglint.layout.model import transfer as tr
from contiglint.layout.model.frozen import evolve
from contiglint.layout.model.shape_transfers import at_assumed_rank, sizes_of
from contiglint.layout.model.sizes import Size, literal, multiply, size_text, symbol
from contiglint.layout.model.transfer import Call
from contiglint.layout.model.values import Const, IntVal, Kind, Seq, Tensor, Value


@at_assumed_rank
def interpolate(call: Call) -> Value:
    """F.interpolate / nn.Upsample: contiguous unless the input is channels_last
    (tr.keep_channels_last, measured for every mode); batch and channels carry, the spatial
    sizes are `size` where it is given."""
    result = tr.keep_channels_last(call)
    given = sizes_of(call.this)
    if not isinstance(result, Tensor) or result.geometry is None or given is None or \
            len(given) != result.geometry.rank:
        return result
    size = call.config.get("size", call.arg(0, "size"))
    spatial = len(given) - 2
    items = size.items if isinstance(size, Seq) and size.items is not None else \
        (size,) * spatial if isinstance(size, IntVal) else (None,) * spatial
    if len(items) != spatial:
        items = (None,) * spatial
    sizes = [i.size if isinstance(i, IntVal) else None for i in items]
    if size is None:  # an integer scale_factor multiplies each spatial size
        factor = call.config.get("scale_factor", call.arg(1, "scale_factor"))
        factors = factor.items if isinstance(factor, Seq) and factor.items is not None else \
            (factor,) * spatial
        if len(factors) == spatial and all(isinstance(f, IntVal) and f.size is not None and
                                           not f.size[1] for f in factors):
            sizes = [multiply(f.size, n) if n is not None else None
                     for f, n in zip(factors, given[2:])]
    return _resized(result, list(given[:2]) + sizes)


@at_assumed_rank
def keep_channels_last(call: Call) -> Value:
    """Pooling and normalization (tr.keep_channels_last for the layout): a norm keeps every
    size; a max or average pool keeps batch and channels and gives each spatial dim its
    `window_sizes` (facts.POOLS: the Conv formula, in floor mode, the stride the kernel's by
    default)."""
    result = tr.keep_channels_last(call)
    if isinstance(result, Tensor) and result.noncontiguous and _device_dependent(call):
        result = evolve(result, maybe=True)
    elif isinstance(result, Tensor) and result.kind is Kind.CONTIGUOUS and \
            "batchnorm" in call.name.lower().replace("_", ""):
        kept = tr.densify(call.tensor)  # CUDA keeps a permuted input's layout, the CPU copies
        if kept.noncontiguous:  # (facts.DEVICE_LAYOUTS)
            result = evolve(kept, maybe=True)
    given = sizes_of(call.this)
    if not isinstance(result, Tensor) or result.geometry is None or given is None or \
            len(given) != result.geometry.rank:
        return result
    name = call.name.rsplit(".", 1)[-1]
    if "norm" in name.lower():
        sizes = list(given)
    elif name == "pad":
        sizes = _padded(call, list(given))
        if sizes is None:
            return result
    else:
        config = _pool_config(call, name)
        spatial = facts.POOLS.get(name.lower().replace("_", ""))
        if config is None or spatial is None or len(given) <= spatial:
            return result
        sizes = list(given[:-spatial]) + window_sizes(config, given[-spatial:], spatial)
    return _resized(result, sizes)


def _device_dependent(call: Call) -> bool:
    """A replicate pad (nn.ReplicationPad*d, or F.pad in a mode that is not literally another)
    or a pixel (un)shuffle: its result keeps a channels_last input's layout on the CPU and is
    contiguous on CUDA (facts.DEVICE_LAYOUTS), so the layout is known only where the device is."""
    name = call.name.rsplit(".", 1)[-1]
    if name != "pad":
        return name.startswith("ReplicationPad") or name.lower().startswith("pixel")
    mode = call.arg(1, "mode")
    return mode is not None and not (isinstance(mode, Const) and mode.value != "replicate")


def _resized(result: Tensor, sizes: Sequence[Size]) -> Tensor:
    """`result` with these sizes, its kind reclassified (a channels_last result of 1 x 1
    spatial sizes is contiguous)."""
    geometry = result.geometry
    for dim, size in enumerate(sizes):
        geometry = geometry.with_axis(dim, size=size)
    if result.kind is Kind.UNKNOWN:
        return evolve(result, geometry=geometry)
    resized = Tensor.of(geometry, result.origin)
    return evolve(resized, maybe=result.maybe and resized.noncontiguous, dtype=result.dtype)


def convolution(call: Call) -> Value:
    """F.conv1d/2d/3d (tr.convolution for the layout): (N, weight.size(0), *spatial), each
    spatial size the Conv formula's (`window_sizes`) for the weight's kernel and the literal
    stride, padding and dilation. convNd takes N + 1 or N + 2 dims, so an input known to
    have at least N + 2 has exactly that many: the sizes assumed there are its sizes."""
    name = call.name.rsplit(".", 1)[-1]
    tensor = call.this
    if name in ("conv1d", "conv2d", "conv3d") and isinstance(tensor, Tensor) and \
            tensor.geometry is None and tensor.witness_geometry is not None and \
            tensor.witness_geometry.rank == tensor.min_rank == int(name[-2]) + 2:
        call = evolve(call, this=evolve(tensor, geometry=tensor.assumed, assumed=None))
    result = tr.convolution(call)
    weight, given = call.arg(0, "weight"), sizes_of(call.this)
    if name not in ("conv1d", "conv2d", "conv3d") or not isinstance(result, Tensor) or \
            result.geometry is None or given is None or not isinstance(weight, Tensor) or \
            weight.geometry is None:
        return result
    k = int(name[-2])
    if len(given) != k + 2 or weight.rank != k + 2 or result.rank != k + 2:
        return result
    kernel = weight.geometry.sizes[2:]
    if any(size is None or size[1] for size in kernel):
        return _resized(result, [given[0], weight.geometry.sizes[0]] + [None] * k)
    config: dict = {"kernel": tuple(kernel)}
    for index, role in ((2, "stride"), (3, "padding"), (4, "dilation")):
        value = window_argument(call.arg(index, role))
        if value == UNREAD:
            return result
        if value is not None:
            config[role] = value
    return _resized(result, [given[0], weight.geometry.sizes[0]] +
                    window_sizes(config, given[2:], k))


def _padded(call: Call, given: list[Size]) -> Optional[list[Size]]:
    """F.pad(x, (left, right, top, bottom, ...)): the last dims grow by their two pads
    (facts.PAD), written `n + k` for a symbolic n."""
    pad = call.arg(0, "pad")
    if not isinstance(pad, Seq) or pad.items is None or len(pad.items) % 2 or \
            len(pad.items) // 2 > len(given) or not all(
                isinstance(i, IntVal) and i.size is not None and not i.size[1]
                for i in pad.items):
        return None
    amounts = [i.size[0] for i in pad.items]
    out = list(given)
    for k in range(len(amounts) // 2):
        grow, dim = amounts[2 * k] + amounts[2 * k + 1], len(given) - 1 - k
        n = given[dim]
        if n is None or grow == 0:
            continue
        if not n[1]:
            out[dim] = literal(n[0] + grow) if n[0] + grow > 0 else None
        else:
            out[dim] = symbol(f"{size_text(n)} {'+' if grow > 0 else '-'} {abs(grow)}")
    return out


def _pool_config(call: Call, name: str) -> Optional[dict]:
    """A max or average pool's kernel, stride, padding and dilation (as window_sizes reads
    them), from a module's constructor (call.config) or a function's arguments; None in ceil
    mode or where the kernel is not literal."""
    if name != name.lower():  # a module: nn_modules.module_config read its constructor
        config = dict(call.config)
        ceil = config.get("ceil_mode")
    else:
        config = {}
        roles = ("kernel", "stride", "padding", "dilation") if name.startswith("max") else \
            ("kernel", "stride", "padding")
        for index, (role, keyword) in enumerate(zip(roles, ("kernel_size", "stride",
                                                            "padding", "dilation"))):
            value = window_argument(call.arg(index, keyword))
            if value is not None:
                config[role] = value
        ceil = call.arg(4 if name.startswith("max") else 3, "ceil_mode")
        ceil = ceil.value if isinstance(ceil, Const) else ceil
    if ceil not in (None, False) or config.get("kernel", UNREAD) == UNREAD:
        return None
    config.setdefault("stride", config["kernel"])  # a pool's stride is its kernel's
    return config


UNREAD = "unread"  # a window argument the code gives but not as literal sizes


def window_argument(value: Optional[Value]):
    """A Conv's or pool's kernel, stride, padding or dilation argument as `window_sizes` reads
    it: a size, a tuple of one per dim, `same`/`valid`; UNREAD for one given otherwise (a
    variable), so that no default stands in for it; None where it is not given."""
    if value is None or (isinstance(value, Const) and value.value is None):
        return None
    if isinstance(value, Const) and value.value in ("same", "valid"):
        return value.value
    if isinstance(value, IntVal) and value.size is not None:
        return value.size
    if isinstance(value, Seq) and value.items is not None and all(
            isinstance(i, IntVal) and i.size is not None for i in value.items):
        return tuple(i.size for i in value.items)
    return UNREAD


def window_sizes(config: dict, given, spatial: int) -> list:
    """The spatial output sizes of a Conv or pool for input sizes `given` (facts.conv_size):
    computed where the input size and the kernel, stride, padding and dilation in `config`
    (role -> a size, or a tuple of one per dim) are literal, the input's own where every size
    is kept (stride 1, padding `same` or (k - 1) / 2 per dilation); else unknown."""
    def per_dim(role: str) -> Optional[list]:
        value = config.get(role)
        if value == UNREAD:
            return None
        if value is None and role in facts.CONV_DEFAULTS:
            value = literal(facts.CONV_DEFAULTS[role])
        values = list(value) if isinstance(value, tuple) and value and \
            isinstance(value[0], tuple) else [value] * spatial
        if len(values) != spatial or any(v is None or v[1] for v in values):
            return None
        return [v[0] for v in values]
    kernel, stride, dilation = per_dim("kernel"), per_dim("stride"), per_dim("dilation")
    padding = [None] * spatial if config.get("padding") in ("same", "valid") else \
        per_dim("padding")
    if kernel is None or stride is None or dilation is None or padding is None:
        return [None] * spatial
    if config.get("padding") in ("same", "valid"):
        if config["padding"] == "same":
            return list(given)
        padding = [0] * spatial
    out = []
    for size, k, s, p, d in zip(given, kernel, stride, padding, dilation):
        if size is not None and not size[1]:
            out.append(literal(facts.conv_size(size[0], k, s, p, d)))
        else:
            out.append(size if size is not None and facts.conv_keeps_size(k, s, p, d)
                       else None)
    return out
