"""Case recipes for the copying entries (gather/index/scatter, cumsum, softmax, topk), the
matmul family, the functional/nn layers (linear, norms, losses, embedding, fold) and the
channels_last-aware conv/pool/pad/norm layers."""
from __future__ import annotations

import re

import torch
from hypothesis import strategies as st

from tests.op_cases import Case
from tests.op_recipes_views import dim, plain
from tests.op_world import twins


def _index(draw, size, count=None):
    count = count or draw(st.integers(1, 3))
    return plain(torch.tensor([draw(st.integers(0, size - 1)) for _ in range(count)]), "index")


def copy(draw, form, name):
    """roll/repeat/index_select/gather/scatter/tril/cumsum/softmax/topk/...: each spelling's
    arguments built for the drawn input."""
    short = name.rsplit(".", 1)[-1]
    rank = (2, 4) if short in ("tril", "triu") else (1, 1) if short == "outer" else (1, 4)
    x = draw(twins(rank=rank, dtype=draw(st.sampled_from([torch.float32, torch.float64]))))
    shape = tuple(x.real.shape)
    if short == "cross":
        x = draw(twins(shape=shape[:-1] + (3,)))
        shape = tuple(x.real.shape)
    d = dim(draw, x)
    size = shape[d]
    mask = plain(torch.randn(shape) > 0, "mask")
    same = plain(torch.randn(shape, dtype=x.real.dtype))
    index_like = plain(torch.randint(0, size, shape), "index")
    args = {
        "roll": (1, d), "repeat": tuple([2] * len(shape)), "tile": ((2,),),
        "repeat_interleave": (2, d), "index_select": (d, _index(draw, size)),
        "gather": (d, index_like), "masked_select": (mask,),
        "take": (_index(draw, x.real.numel()),),
        "take_along_dim": (index_like, d), "nonzero": (), "masked_fill": (mask, 0.0),
        "masked_scatter": (mask, same), "index_fill": (d, _index(draw, size), 0.0),
        "index_add": (d, plain(torch.arange(size)), same), "index_copy": (d, plain(
            torch.arange(size)), same), "scatter": (d, index_like, same),
        "scatter_add": (d, index_like, same), "tril": (), "triu": (), "cumsum": (d,),
        "cumprod": (d,), "softmax": (d,), "log_softmax": (d,), "topk": (1, d),
        "kthvalue": (1, d), "argsort": (d,), "new_tensor": ([1.0, 2.0],), "outer": (same,),
        "cross": (same, d if shape[d] == 3 else -1), "kron": (same,),
        "cdist": (plain(torch.randn(shape[:-1] + (shape[-1],))),),
    }[short]
    if short == "cdist":
        x = draw(twins(rank=(2, 3)))
        args = (plain(torch.randn(tuple(x.real.shape))),)
    return Case(form, name, x, args, may_raise=short == "kron")  # kron views internally


def matmul(draw, form, name):
    short = name.rsplit(".", 1)[-1]
    n, k, m, b = (draw(st.integers(1, 4)) for _ in range(4))
    shapes = {"mm": ((n, k), (k, m)), "bmm": ((b, n, k), (b, k, m)), "mv": ((n, k), (k,)),
              "dot": ((k,), (k,)), "inner": ((n, k), (m, k)), "tensordot": ((n, k), (k, m)),
              "matmul": draw(st.sampled_from([((n, k), (k, m)), ((b, n, k), (k, m)),
                                              ((b, n, k), (b, k, m)), ((k,), (k, m)),
                                              ((n, k), (k,)), ((2, b, n, k), (b, k, m))]))}
    extra = {"addmm": ((n, m), (n, k), (k, m)), "baddbmm": ((b, n, m), (b, n, k), (b, k, m)),
             "addbmm": ((n, m), (b, n, k), (b, k, m))}
    if short in extra:
        shapes3 = extra[short]
        first = draw(twins(shape=shapes3[0]))
        return Case(form, name, first, tuple(draw(twins(shape=s)) for s in shapes3[1:]))
    left, right = shapes[short]
    a, c = draw(twins(shape=left)), draw(twins(shape=right))
    return Case(form, name, a, (c, 1) if short == "tensordot" else (c,))


def layer(draw, form, name):
    """F.linear/softmax/layer_norm/embedding/losses/... and their nn modules."""
    short = name.rsplit(".", 1)[-1]
    x = draw(twins(rank=(2, 4)))
    shape = tuple(x.real.shape)
    c = shape[-1]
    target = plain(torch.randn(shape))
    if short in ("rrelu", "logsigmoid", "LogSigmoid"):
        return Case(form, name, x)
    if short in ("linear", "Linear", "LazyLinear"):
        if form == "module":
            return Case(form, name, x, ctor=(c, 3) if short == "Linear" else (3,))
        return Case(form, name, x, (plain(torch.randn(3, c)),))
    if short in ("bilinear", "Bilinear"):
        y = draw(twins(shape=shape[:-1] + (2,)))
        if form == "module":
            return Case(form, name, x, (y,), ctor=(c, 2, 3))
        return Case(form, name, x, (y, plain(torch.randn(3, c, 2))))
    if short in ("softmax", "log_softmax", "softmin", "gumbel_softmax", "Softmax", "LogSoftmax"):
        d = dim(draw, x)
        return Case(form, name, x, ctor=(d,)) if form == "module" else \
            Case(form, name, x, (), {"dim": d})
    if short in ("layer_norm", "rms_norm", "LayerNorm", "RMSNorm"):
        return Case(form, name, x, ctor=(c,)) if form == "module" else Case(form, name, x, ((c,),))
    if short.lower().startswith("instance"):  # (n, c, spatial...): 4 channels, any layout
        spatial = int(short[-2]) if form == "module" else draw(st.integers(1, 3))
        x = draw(twins(shape=(draw(st.integers(1, 2)), 4) + (3,) * spatial))
        return Case(form, name, x, ctor=(4,)) if form == "module" else Case(form, name, x)
    if short in ("embedding", "Embedding", "one_hot"):
        idx = draw(twins(shape=shape, dtype=torch.int64))
        if short == "one_hot":
            return Case(form, name, idx, (5,))
        if form == "module":
            return Case(form, name, idx, ctor=(5, 3))
        return Case(form, name, idx, (plain(torch.randn(5, 3)),))
    if short in ("unfold", "Unfold", "fold", "Fold"):
        x = draw(twins(shape=(draw(st.integers(1, 2)), 2, 3, 3)))
        if short.lower() == "fold":
            x = draw(twins(shape=(2, 8, 4)))
            return Case(form, name, x, ctor=((3, 3), 2)) if form == "module" else \
                Case(form, name, x, ((3, 3), 2))
        return Case(form, name, x, ctor=(2,)) if form == "module" else Case(form, name, x, (2,))
    if short == "grid_sample":
        x = draw(twins(shape=(1, 2, 3, 3)))
        return Case(form, name, x, (plain(torch.rand(1, 2, 2, 2) * 2 - 1),),
                    {"align_corners": False})
    if short == "affine_grid":
        theta = draw(twins(shape=(2, 2, 3)))
        return Case(form, name, theta, ((2, 1, 3, 3),), {"align_corners": False})
    if short in ("cross_entropy", "CrossEntropyLoss", "nll_loss"):
        x = draw(twins(shape=(draw(st.integers(1, 3)), 4)))
        labels = plain(torch.randint(0, 4, (x.real.shape[0],)), "labels")
        return Case(form, name, x, (labels,))
    if short == "binary_cross_entropy":
        return Case(form, name, _probabilities(draw, shape), (plain(torch.rand(shape)),))
    if short in ("cosine_similarity", "pairwise_distance", "mse_loss", "l1_loss", "kl_div",
                 "smooth_l1_loss", "huber_loss", "binary_cross_entropy_with_logits", "MSELoss"):
        reduction = {} if short in ("cosine_similarity", "pairwise_distance", "MSELoss") else \
            {"reduction": draw(st.sampled_from(["none", "mean"]))}
        return Case(form, name, x, (target,), reduction)
    raise KeyError(name)


def _probabilities(draw, shape):
    """A twin holding values in (0, 1); overlapping layouts cannot be written in place."""
    x = draw(twins(shape=shape, layouts=("contiguous", "transposed", "permuted", "stepped",
                                         "narrowed", "selected", "leading_slice")))
    x.real.copy_(torch.rand(shape) * 0.8 + 0.1)
    return x


CONV_RANK = {"1d": 3, "2d": 4, "3d": 5}


def convolution(draw, form, name):
    short = name.rsplit(".", 1)[-1]
    rank = CONV_RANK[short[-2:]]
    x = draw(twins(shape=(draw(st.integers(1, 2)), 2) + tuple(
        draw(st.integers(1, 3)) for _ in range(rank - 2))))
    transposed = "transpose" in short.lower()
    if form == "module":
        if short.startswith("Lazy"):
            return Case(form, name, x, ctor=(3, 1))
        return Case(form, name, x, ctor=(2, 3, 1))
    weight = torch.randn(((2, 3) if transposed else (3, 2)) + (1,) * (rank - 2))
    w = plain(weight, "weight")
    if rank == 4 and draw(st.booleans()):
        w = draw(twins(shape=tuple(weight.shape), layouts=("channels_last",)))
    return Case(form, name, x, (w,))


POOL_ARGS = {"max_pool": (1,), "avg_pool": (1,), "adaptive_avg_pool": (1,),
             "adaptive_max_pool": (1,), "lp_pool": (2.0, 1), "pad": ((1, 1),),
             "interpolate": (), "upsample": (), "pixel_shuffle": (2,), "pixel_unshuffle": (2,),
             "group_norm": (2,), "local_response_norm": (2,)}
MODULE_ARGS = {"MaxPool": (1,), "AvgPool": (1,), "AdaptiveAvgPool": (1,), "AdaptiveMaxPool": (1,),
               "BatchNorm": (4,), "GroupNorm": (2, 4), "InstanceNorm": (4,), "Upsample": (),
               "PixelShuffle": (2,), "PixelUnshuffle": (2,), "ZeroPad": (1,),
               "ReflectionPad": (1,), "ReplicationPad": (1,), "ConstantPad": (1, 0.0),
               "SyncBatchNorm": (4,)}


def pooling(draw, form, name):
    """Pools, pads, resizes and norms: 4 channels, spatial sizes that every op accepts."""
    short = name.rsplit(".", 1)[-1]
    stem = re.sub(r"_?[123]d$", "", short)
    rank = CONV_RANK.get(short[-2:], draw(st.sampled_from([3, 4, 4, 5])))
    if stem in ("pixel_shuffle", "PixelShuffle", "pixel_unshuffle", "PixelUnshuffle"):
        rank = 4
    spatial = tuple(draw(st.integers(2, 3)) * (2 if "unshuffle" in short.lower() else 1)
                    for _ in range(rank - 2))
    channels = 4
    x = draw(twins(shape=(draw(st.integers(1, 2)), channels) + spatial))
    if stem.lower().replace("_", "").startswith("adaptive"):
        return _adaptive(draw, form, name, x, rank - 2)
    if form == "module":
        key = next(k for k in MODULE_ARGS if short.startswith(k))
        kwargs = {"scale_factor": 2} if key == "Upsample" else {}
        return Case(form, name, x, ctor=MODULE_ARGS[key], ctor_kwargs=kwargs)
    if stem in ("interpolate", "upsample"):
        return Case(form, name, x, (), {"scale_factor": 2})
    if stem == "batch_norm":
        return Case(form, name, x, (plain(torch.zeros(channels)), plain(torch.ones(channels))))
    if stem == "instance_norm":
        return Case(form, name, x)
    if stem == "pad":
        mode = draw(st.sampled_from([None, "constant", "reflect", "replicate", "circular"]))
        return Case(form, name, x, ((1, 1) * (rank - 2),), {"mode": mode} if mode else {})
    return Case(form, name, x, POOL_ARGS[stem])


def _adaptive(draw, form, name, x, spatial):
    """Adaptive pools: an output size of ones (int or tuple), other sizes, None (the input's
    size), positional or keyword; max pools sometimes with their indices."""
    keep = [(None,) + (1,) * (spatial - 1), (1,) * (spatial - 1) + (None,)] \
        if spatial > 1 else []  # None keeps the input's size (not for 1d)
    output = draw(st.sampled_from([1, (1,) * spatial, 2, (2,) * spatial] + keep))
    keyword = draw(st.booleans())
    extra = {"return_indices": True} if "max" in name.lower() and draw(st.booleans()) else {}
    if form == "module":
        return Case(form, name, x, ctor=() if keyword else (output,),
                    ctor_kwargs={**({"output_size": output} if keyword else {}), **extra})
    return Case(form, name, x, () if keyword else (output,),
                {**({"output_size": output} if keyword else {}), **extra})


def composite_norm(draw, form, name):
    """rms_norm / local_response_norm: x times a scale computed from x."""
    x = draw(twins(rank=(3, 4)))
    c = x.real.shape[-1]
    if name.endswith("RMSNorm"):
        return Case(form, name, x, ctor=(c,))
    if name.endswith("LocalResponseNorm"):
        return Case(form, name, x, ctor=(2,))
    return Case(form, name, x, ((c,),) if name.endswith("rms_norm") else (2,))


def encoder(draw, form, name):
    """nn.TransformerEncoderLayer/TransformerEncoder (post-norm and pre-norm) on (b, t, d)."""
    x = draw(twins(rank=(3, 3), max_size=4))
    d = x.real.shape[-1]
    options = {"dim_feedforward": 8, "dropout": 0.0, "batch_first": True,
               "norm_first": draw(st.booleans())}
    layer = torch.nn.TransformerEncoderLayer(d, 1, **options)
    if name.endswith("TransformerEncoder"):
        return Case(form, name, x, ctor=(layer, 1), ctor_kwargs={"enable_nested_tensor": False})
    return Case(form, name, x, ctor=(d, 1), ctor_kwargs=options)


RECIPES = {
    "torch.nn.functional.rms_norm": composite_norm,
    "torch.nn.TransformerEncoderLayer": encoder,
    "roll": copy,
    "index_fill": copy,
    "topk": copy,
    "nonzero": copy,
    "matmul": matmul,
    "torch.nn.functional.linear": layer,
    "torch.nn.functional.logsigmoid": layer,
    "torch.nn.functional.conv1d": convolution,
    "torch.nn.functional.max_pool1d": pooling,
    "torch.nn.functional.interpolate": pooling,
    "torch.nn.functional.embedding": layer,
    "torch.nn.functional.unfold": layer,
    "torch.nn.functional.adaptive_avg_pool1d": pooling,
}
