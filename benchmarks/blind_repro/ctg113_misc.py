"""CTG113 (redundant .contiguous()) findings outside verl: auto-round 0.16.1
(export_to_gguf/conversion/deepseek.py:795, granite.py:180/189, utils/disk_stream_util.py:702/972),
chronos-forecasting 2.3.2 (chronos/utils.py:109), compressed-tensors 0.20.1
(magnitude_expert_pruner.py:218), demucs 4.1.0 (demucs/transformer.py:831), nequip 0.19.1
(nn/embedding/utils.py:80, nn/utils.py:155/177), neuralforecast 3.3.0 (common/_modules.py:713,
models/informer.py:179), neuraloperator 2.0.0 (mpu/helpers.py:164), ring-attention-pytorch 0.5.20
(zig_zag_attention.py:69).

Where the real function imports cheaply it runs under `contiguous_spy`, which records whether the
flagged .contiguous() returned its receiver unchanged. Otherwise the flagged expression is
evaluated on inputs of the shapes and layouts the surrounding code produces (commented per case).
"""
import sys
from pathlib import Path

import torch
import torch.nn as nn

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import bare_import, contiguous_spy, report, stub_module  # noqa: E402

torch.manual_seed(0)


def noop(t, **k):
    return t.contiguous(**k).data_ptr() == t.data_ptr() and t.is_contiguous(**k)


# auto-round: 2-D / 3-D weights read from checkpoints (contiguous, or any layout: cat of <4-D
# tensors always allocates row-major; only all-channels_last 4-D inputs give a non-row-major cat)
def autoround():
    e, h = torch.randn(64, 32), torch.randn(48, 64).t()  # even a transposed h_proj
    dsk = noop(torch.cat((e, torch.randn(64, 32)), dim=1)) and noop(torch.cat((e, h), dim=1))
    a = torch.randn(3, 1, 8, 16).squeeze(1)
    gra = noop(torch.cat([torch.zeros_like(a[:1]), a], dim=0))
    b = torch.stack([torch.randn(16, 8).t() for _ in range(3)])  # _lora_b after per-adapter permute
    grb = noop(torch.cat([torch.zeros_like(b[:1]), b], dim=0))
    shards = [torch.randn(2, 16, 4), torch.randn(2, 16, 4)]  # conv1d / expert shards from safetensors
    ds = noop(torch.cat(shards, dim=0)) and noop(torch.cat(shards, dim=2))
    return f"deepseek:795 no-op={dsk}; granite:180 no-op={gra}; granite:189 no-op={grb}; disk_stream:702/972 no-op={ds}"


report("CTG113 auto-round cat(...).contiguous() on 2-D/3-D checkpoint tensors", autoround)

utils = bare_import("chronos-forecasting", "chronos.utils")


def chronos():
    with contiguous_spy("chronos/utils.py", 109) as spy:
        for levels in ([0.1, 0.5, 0.9], [0.0, 0.5, 1.0], torch.tensor([[0.2, 0.5, 0.8]] * 4)):
            utils.interpolate_quantiles([0.05, 0.5, 0.95], levels, torch.randn(4, 3).sort(-1).values)
    return spy.summary()


report("CTG113 chronos/utils.py:109 torch.cat(sorted_levels_with_padding, -1).contiguous()", chronos)


def pruner():  # index_select always allocates a row-major result, whatever the source layout
    res = [noop(t.index_select(0, torch.tensor([0, 2]))) for t in
           (torch.randn(4, 6, 8), torch.randn(4, 8, 6).transpose(1, 2),
            torch.randn(4, 3, 5, 6).to(memory_format=torch.channels_last))]
    return f"index_select(0, idx).contiguous() no-op for row-major/transposed/channels_last experts: {res}"


report("CTG113 magnitude_expert_pruner.py:218 tensor.index_select(0, idx).contiguous()", pruner)

stub_module("lameenc")
dtr = bare_import("demucs", "demucs.transformer")


def demucs_sparse():
    seen = []

    def spy(q, k, v, sparsity, **kw):  # stands in for the (xformers) function; records its inputs
        seen.append(all(noop(x) for x in (q, k, v)))
        return q

    real = dtr.dynamic_sparse_attention
    dtr.dynamic_sparse_attention = spy
    try:
        for batch in (2, 1):
            for bf, heads in ((False, 4), (True, 4), (False, 1)):
                m = dtr.MultiheadAttention(32, heads, batch_first=bf, auto_sparsity=0.9)
                x = torch.randn(6, batch, 32) if not bf else torch.randn(batch, 6, 32)
                m(x, x, x)
    finally:
        dtr.dynamic_sparse_attention = real
    # at batch size 1 with several heads, flatten(0, 1) of the head permute is a view of it:
    # q/k/v reach line 831 transposed, and the .contiguous() copies
    return ("q/k/v already contiguous when reaching line 831 (batch 2 then 1; batch_first F/T, "
            f"1 head): {seen}")


report("CTG113 demucs/transformer.py:831 [x.contiguous() for x in [query, key, value]]", demucs_sparse)


def nequip():  # extracted from nequip/nn/utils.py mul_ir_to_ir_mul / ir_mul_to_mul_ir (e3nn Irreps -> (mul, dim) list)
    res = []
    irreps = [(4, 1), (3, 3), (2, 5)]
    x = torch.randn(10, sum(m * d for m, d in irreps))
    for fwd in (True, False):
        chunks, start = [], 0
        for mul, dim in irreps:
            chunk = x[..., start:start + mul * dim]
            start += mul * dim
            if mul > 1 and dim > 1:
                shp = (mul, dim) if fwd else (dim, mul)
                chunk = chunk.view(10, *shp).transpose(-1, -2).contiguous().view(10, mul * dim)
            chunks.append(chunk)
        res.append(noop(torch.cat(chunks, dim=-1)))
    cut = noop(torch.as_tensor([[4.0, 5.0], [5.0, 6.0]], dtype=torch.float64))
    return f"nn/utils.py:155/177 cat no-op={res}; embedding/utils.py:80 as_tensor(list) no-op={cut}"


report("CTG113 nequip cat(out_chunks, -1).contiguous() / as_tensor(cutoff_list).contiguous()", nequip)

stub_module("neuralforecast.common._base_model", BaseModel=nn.Module)
nfm = bare_import("neuralforecast", "neuralforecast.common._modules")
inf = bare_import("neuralforecast", "neuralforecast.models.informer")


def nf_attention():
    res = []
    att = nfm.FullAttention(mask_flag=False, attention_dropout=0.1, output_attention=False)
    q = torch.randn(2, 7, 3, 8)
    for train in (False, True):
        att.train(train)
        with contiguous_spy("neuralforecast/common/_modules.py", 713) as s:
            att(q, q, q, None)
        res.append((("train" if train else "eval"), s.summary()))
    return f"{res}"


def informer():
    res = []
    for mask in (False, True):
        pa = inf.ProbAttention(mask_flag=mask, factor=5, attention_dropout=0.0, output_attention=False)
        q = torch.randn(2, 24, 4, 8)
        with contiguous_spy("neuralforecast/models/informer.py", 179) as s:
            pa(q, q, q, None)
        res.append((f"mask_flag={mask}", s.summary()))
    return f"{res}"


report("CTG113 neuralforecast _modules.py:713 attn_output.permute(0, 2, 1, 3).contiguous()", nf_attention)
report("CTG113 neuralforecast informer.py:179 context.contiguous()", informer)


def mpu_gather():  # extracted from neuralop/mpu/helpers.py _gather (all_gather only fills values)
    res = []
    for x in (torch.randn(2, 1, 4, 4), torch.randn(2, 8, 4, 4), torch.randn(2, 8, 4, 4).to(memory_format=torch.channels_last),
              torch.randn(2, 8, 4, 4).transpose(2, 3), torch.randn(6, 8)):
        fmt = torch.channels_last if x.is_contiguous(memory_format=torch.channels_last) else torch.contiguous_format
        tl = [torch.empty_like(x) for _ in range(2)]
        tl[1] = x.contiguous(memory_format=fmt)
        res.append(noop(torch.cat(tl, dim=x.dim() - 1), memory_format=fmt))
    return f"cat(...).contiguous(memory_format=input_format) no-op for C=1/row-major/channels_last/transposed/2-D: {res}"


report("CTG113 neuraloperator mpu/helpers.py:164", mpu_gather)


def zigzag():  # extracted from zig_zag_shard: (b, n, d) or (b, h, n, d) chunked on the sequence dim
    res = []
    for t in (torch.randn(2, 64, 16), torch.randn(2, 4, 64, 16), torch.randn(2, 64, 4, 16).transpose(1, 2)):
        world, rank = 4, 1
        c = t.chunk(2 * world, dim=-2)
        res.append(noop(torch.cat((c[rank], c[2 * world - 1 - rank]), dim=-2)))
    return f"no-op for 3-D, 4-D and a transposed 4-D input: {res}"


report("CTG113 ring-attention zig_zag_attention.py:69", zigzag)
