"""Mutants drawn from moshi, fastai, gluonts and reformer-pytorch (packages in none of
contiglint's corpora; k-diffusion and enformer-pytorch, first chosen, had fewer than 4 sites).
Run: python benchmarks/mutants_repro/unseen_3.py [CASE ...]
"""
import torch
import torch.nn.functional as F

from common import run_all


def _r(mutant):
    return (lambda t, *s: t.view(*s)) if mutant else (lambda t, *s: t.reshape(*s))


def _pick(mutant, which, name):
    """The view/reshape to use at the site `name`: the mutated one only where it is `which`."""
    return _r(mutant and which == name)


# --- moshi ---------------------------------------------------------------------------------

def moshi_multinomial(mutant, which, path, B, card, k=0, p=0.0, cfg=False):
    # moshi/utils/sampling.py sample_token -> sample_top_k / sample_top_p / multinomial;
    # logits are LMGen's text_logits / depformer logits [B, 1, 1, card] (models/lm.py:736, 833)
    logits = torch.nn.Linear(16, card)(torch.randn(2 * B if cfg else B, 16))[:, None, None]
    if cfg:  # LMGen with cfg_coef != 1
        cond, null = logits.chunk(2)
        logits = null + (cond - null) * 3.0
    probs = torch.softmax(logits.float() / 0.7, dim=-1)
    indices = None
    if path == "top_k":
        probs, indices = torch.topk(probs, min(k, probs.shape[-1]), dim=-1)
    elif path == "top_p":
        probs, indices = torch.sort(probs, dim=-1, descending=True)
        mask = torch.cumsum(probs, dim=-1) - probs > p
        probs *= (~mask).float()
        probs.div_(probs.sum(dim=-1, keepdim=True))
    elif path == "self_test":  # the module's __main__: a 1-D tensor of weights
        probs = torch.tensor([5.0, 2.0, 12.0, 6.0, 8.0, 1.0, 0.0, 4.0])
    # multinomial(probs, num_samples=1)
    input_ = _pick(mutant, which, "in")(probs, -1, probs.shape[-1])
    q = torch.empty_like(input_).exponential_(1)
    output_ = (input_ / q).argmax(dim=-1, keepdim=True)
    output = _pick(mutant, which, "out")(output_, *list(probs.shape[:-1]), -1)
    if indices is not None:
        output = indices.gather(-1, output)
    return output


MOSHI_SAMPLING = [dict(path="plain", B=1, card=64), dict(path="top_k", B=1, card=64, k=25),
                  dict(path="top_k", B=2, card=64, k=250, cfg=True),
                  dict(path="top_p", B=2, card=64, p=0.9), dict(path="self_test", B=1, card=8)]


def moshi_cross_entropy(mutant, which, B, T, card, stream):
    # moshi/utils/utils.py cross_entropy(logits, targets, mask) on LMModel.forward's LMOutput
    # (models/lm.py:371-377): logits/mask from _undelay_sequence (torch.stack, torch.ones &=),
    # targets the codebooks of `codes` they predict, as moshi-finetune passes them:
    # codes[:, audio_offset:audio_offset + dep_q] (audio) or codes[:, :audio_offset] (text)
    K_total, audio_offset, dep_q = 17, 1, 8
    codes = torch.randint(0, card, (B, K_total, T))
    if stream == "audio":
        K, targets = dep_q, codes[:, audio_offset:audio_offset + dep_q]
    else:
        K, targets = 1, codes[:, :audio_offset]
    logits = torch.stack([torch.randn(B, T, card) for _ in range(K)], dim=1)
    mask = torch.ones(B, K, T, dtype=torch.bool)
    mask[:, :, -1:] = False
    mask &= targets != 0
    output_shape = targets.shape
    logits = logits.view(-1, logits.shape[-1])
    targets = _pick(mutant, which, "targets")(targets, -1)
    mask = _pick(mutant, which, "mask")(mask, -1)
    safe_targets = torch.where(mask, targets, torch.zeros(1, dtype=targets.dtype))
    ce = torch.logsumexp(logits, dim=-1, keepdim=True) - logits.gather(-1, safe_targets[..., None])
    ce = torch.where(mask, ce[..., 0], torch.zeros(1, dtype=ce.dtype))
    return ce.view(output_shape)


MOSHI_CE = [dict(B=1, T=6, card=32, stream="audio"), dict(B=1, T=6, card=32, stream="text"),
            dict(B=2, T=6, card=32, stream="audio"), dict(B=4, T=3, card=32, stream="text")]


def moshi_expand_kv(mutant, B, T, heads, kv_repeat, d):
    # moshi/modules/transformer.py StreamingMultiheadAttention.forward with kv_repeat > 1 (the
    # only caller of expand_repeated_kv): k, v from rearrange(projected[:, :, embed_dim:], ...)
    kh = heads // kv_repeat
    projected = torch.nn.Linear(32, (heads + 2 * kh) * d, bias=False)(torch.randn(B, T, 32))
    kv = projected[:, :, heads * d:].unflatten(-1, (2, kh, d)).permute(2, 0, 3, 1, 4)
    out = []
    for x in kv:  # expand_repeated_kv(k, kv_repeat), expand_repeated_kv(v, kv_repeat)
        b, h, t, dd = x.shape
        x = x[:, :, None, :, :].expand(b, h, kv_repeat, t, dd)
        out.append(_r(mutant)(x, b, h * kv_repeat, t, dd))
    return out


# --- fastai --------------------------------------------------------------------------------

def fastai_icnr(mutant, which, ni, nf, scale=2):
    # fastai/layers.py icnr_init on PixelShuffle_ICNR(ni, nf)'s 1x1 conv weight
    # [nf * scale**2, ni, 1, 1] (vision/models/unet.py: PixelShuffle_ICNR(up_in_c, up_in_c//2)
    # and PixelShuffle_ICNR(ni))
    x = torch.empty(nf * scale ** 2, ni, 1, 1)
    ni, nf, h, w = x.shape
    ni2 = int(ni / (scale ** 2))
    k = torch.nn.init.kaiming_normal_(x.new_zeros([ni2, nf, h, w])).transpose(0, 1)
    k = (k if mutant and which == "k" else k.contiguous()).view(ni2, nf, -1)
    k = k.repeat(1, 1, scale ** 2)
    return (k if mutant and which == "out" else k.contiguous()).view([nf, ni, h, w]).transpose(0, 1)


FASTAI_ICNR = [dict(ni=16, nf=8), dict(ni=32, nf=32), dict(ni=512, nf=256)]


def fastai_bn_flat(mutant, src, bs, seq, nh):
    # fastai/layers.py BatchNorm1dFlat.forward; the fastai course's Model4 feeds it the output
    # of nn.RNN(nh, nh, batch_first=True); the docs' example a (32, 64, 15) randn
    if src == "rnn":
        x, _ = torch.nn.RNN(nh, nh, batch_first=True)(torch.randn(bs, seq, nh))
    else:
        x = torch.randn(bs, seq, nh)
    bn = torch.nn.BatchNorm1d(nh)
    *f, l = x.shape
    x = (x if mutant else x.contiguous()).view(-1, l)
    return bn(x).view(*f, l)


def _freqhist_bins(t, n_bins=100):
    # fastai/medical/imaging.py Tensor.freqhist_bins
    imsd = t.view(-1).sort()[0]
    q = torch.cat([torch.tensor([0.001]), torch.arange(n_bins).float() / n_bins + (1 / 2 / n_bins),
                   torch.tensor([0.999])])
    return imsd[(len(imsd) * q).long()].unique()


def fastai_hist_scaled(mutant, which, shape):
    # fastai/medical/imaging.py Tensor.hist_scaled (CPU: np.interp) and hist_scaled_pt
    # (interp_1d) on DcmDataset.scaled_px: tensor(pixel_array.astype(np.float32)) * slope + b
    px = torch.randint(0, 4096, shape).float() * 1.0 - 1024
    brks = _freqhist_bins(px)
    if which == "np":
        ys = torch.linspace(0., 1., len(brks)).double().numpy()
        import numpy as np
        x = np.interp(px.numpy().flatten(), brks.numpy(), ys)
        t = torch.as_tensor(x).float()  # fastai's tensor(): ndarray -> as_tensor, f64 -> float
    else:
        ys = torch.linspace(0., 1., len(brks))
        x = px.flatten()
        slopes = (ys[1:] - ys[:-1]) / (brks[1:] - brks[:-1])
        incx = ys[:-1] - (slopes * brks[:-1])
        locs = (x[:, None] >= brks[None, :]).long().sum(1) - 1
        locs = locs.clamp(0, len(slopes) - 1)
        t = slopes[locs] * x + incx[locs]
    return _r(mutant)(t, px.shape).clamp(0., 1.)


FASTAI_HIST = [dict(shape=(64, 64)), dict(shape=(1, 32, 48)), dict(shape=(40, 30))]


# --- gluonts -------------------------------------------------------------------------------

def gluonts_deepar_samples(mutant, B, n, P, nonnegative):
    # gluonts/torch/model/deepar/module.py DeepARModel.forward: one StudentT sample of shape
    # (B * n, 1) per step, torch.cat(dim=1), post_process_samples (relu when nonnegative)
    samples = []
    for _ in range(P):
        df, loc, scale = 2.0 + torch.rand(B * n, 1), torch.randn(B * n, 1), torch.rand(B * n, 1)
        samples.append(torch.distributions.StudentT(df, loc, scale).sample())
    out = torch.cat(samples, dim=1)
    if nonnegative:
        out = torch.relu(out)
    return _r(mutant)(out, -1, n, P)


def gluonts_mqf2_sliding(mutant, B, C, P, energy):
    # gluonts/torch/model/mqf2 module.py MQF2MultiHorizonModel.loss -> distribution.py
    # TransformedMQF2Distribution.energy_score/log_prob -> MQF2Distribution.stack_sliding_view
    past_target, future_target = torch.randn(B, 3 * C), torch.randn(B, P)
    y = torch.cat((past_target[:, -C + 1:], future_target), dim=1)
    scale = past_target.abs().mean(dim=1, keepdim=True) + 1e-5
    z = y / scale  # scale_input: AffineTransform._inverse
    if not energy:
        z = torch.clamp(z, min=-100.0, max=100.0)
    z = z.unfold(dimension=-1, size=P, step=1)
    return _r(mutant)(z, -1, z.shape[-1])


def gluonts_sff_out(mutant, B, C, P, hidden):
    # gluonts/torch/model/simple_feedforward/module.py SimpleFeedForwardModel.forward
    past_target = torch.randn(B, C).abs()
    scaled = past_target / past_target.abs().mean(dim=1, keepdim=True).clamp(min=1e-10)
    dims = [C] + hidden[:-1]
    layers = []
    for i, o in zip(dims[:-1], dims[1:]):
        layers += [torch.nn.Linear(i, o), torch.nn.ReLU()]
    nn_out = torch.nn.Sequential(*layers, torch.nn.Linear(dims[-1], P * hidden[-1]))(scaled)
    return _r(mutant)(nn_out, -1, P, hidden[-1])


def gluonts_cpflows_hvp(mutant, bsz, dim, hidden, context):
    # gluonts/torch/model/mqf2/_cpflows.py DeepConvexFlow.forward_transform_stochastic's
    # hvp_fun, x the (batch * context_length, prediction_length) windows, the potential a
    # small picnn-like convex net plus the quadratic term of icnn_utils.get_potential
    x = torch.randn(bsz, dim)
    c = torch.randn(bsz, context)
    Wz, Wx, Wc, Wo = (torch.nn.Linear(dim, hidden), torch.nn.Linear(hidden, hidden),
                      torch.nn.Linear(context, hidden), torch.nn.Linear(hidden, 1))
    bsz, *dims = x.shape
    d = int(torch.tensor(dims).prod())
    with torch.enable_grad():
        x = x.clone().requires_grad_(True)
        z = F.softplus(Wz(x) + Wc(c))
        z = F.softplus(Wx(z) + Wz(x))
        potential = F.softplus(Wo(z)) + (x.view(bsz, -1) ** 2).sum(1, keepdim=True) / 2
        f = torch.autograd.grad(potential.sum(), x, create_graph=True)[0]
        v = ((torch.rand(bsz, d) > 0.5).float() * 2 - 1).reshape(bsz, *dims)
        hvp = torch.autograd.grad(f, x, v, create_graph=True, retain_graph=True)[0]
        return _r(mutant)(hvp, bsz, d).detach()


# --- reformer-pytorch ----------------------------------------------------------------------

def _look_one_back(x):
    x_extra = torch.cat([x[:, -1:, ...], x[:, :-1, ...]], dim=1)
    return torch.cat([x, x_extra], dim=2)


def _gather(values, indices):  # batched_index_select
    return values.gather(1, indices[:, :, None].expand(-1, -1, values.shape[-1]))


def _lsh_attention(r, qk, v, bucket, n_hashes, query_len, input_mask=None,
                   input_attn_mask=None, allow_dup=True, return_attn=True):
    # reformer_pytorch/reformer_pytorch.py LSHAttention.forward (rehash_each_round, the
    # defaults); r(name) is the reshape/view to use at the site `name`
    batch_size, seqlen, dim = qk.shape
    n_buckets = seqlen // bucket
    rot = torch.randn(1, dim, n_hashes, n_buckets // 2).expand(batch_size, -1, -1, -1)
    rotated = torch.einsum('btf,bfhi->bhti', qk, rot)
    buckets = torch.argmax(torch.cat([rotated, -rotated], dim=-1), dim=-1)
    offsets = torch.reshape(torch.arange(n_hashes) * n_buckets, (1, -1, 1))
    buckets = torch.reshape(buckets + offsets, (batch_size, -1,))
    total_hashes = n_hashes
    ticker = torch.arange(total_hashes * seqlen).unsqueeze(0).expand_as(buckets)
    buckets_and_t = seqlen * buckets + (ticker % seqlen)
    sbuckets_and_t, sticker_i = buckets_and_t.sort(dim=-1)
    sticker = ticker.expand_as(buckets_and_t).gather(-1, sticker_i)
    _, undo_sort = sticker.sort(dim=-1)
    st = (sticker % seqlen)
    sqk, sv = _gather(qk, st), _gather(v, st)
    chunk_size = total_hashes * n_buckets
    bq_t = bkv_t = torch.reshape(st, (batch_size, chunk_size, -1))
    bqk = torch.reshape(sqk, (batch_size, chunk_size, -1, dim))
    bv = torch.reshape(sv, (batch_size, chunk_size, -1, dim))
    bq, bk = bqk, F.normalize(bqk, p=2, dim=-1).type_as(bqk)
    bk, bv, bkv_t = _look_one_back(bk), _look_one_back(bv), _look_one_back(bkv_t)
    dots = torch.einsum('bhie,bhje->bhij', bq, bk) * (dim ** -0.5)
    masked_value = -torch.finfo(dots.dtype).max
    if input_attn_mask is not None:
        input_attn_mask = F.pad(input_attn_mask, (0, seqlen - input_attn_mask.shape[-1], 0,
                                                  seqlen - input_attn_mask.shape[-2]), value=True)
        dot_attn_indices = ((bq_t * seqlen)[:, :, :, None] + bkv_t[:, :, None, :])
        input_attn_mask = r("input_attn_mask")(input_attn_mask, batch_size, -1)
        dot_attn_indices = dot_attn_indices.reshape(batch_size, -1)
        mask = input_attn_mask.gather(1, dot_attn_indices).reshape_as(dots)
        dots.masked_fill_(~mask, masked_value)
    if input_mask is not None:
        input_mask = F.pad(input_mask, (0, seqlen - input_mask.shape[1]), value=True)
        mq = r("mq")(input_mask.gather(1, st), (batch_size, chunk_size, -1))
        mkv = _look_one_back(mq)
        dots.masked_fill_(~(mq[:, :, :, None] * mkv[:, :, None, :]), masked_value)
    dots.masked_fill_(bq_t[:, :, :, None] == bkv_t[:, :, None, :], -5e4)
    if not allow_dup:
        locs1 = undo_sort // bq_t.shape[-1]
        locs2 = (locs1 + 1) % chunk_size
        locs = torch.cat([torch.reshape(locs1, (batch_size, total_hashes, seqlen)),
                          torch.reshape(locs2, (batch_size, total_hashes, seqlen))],
                         1).permute((0, 2, 1))
        slocs = _gather(locs, st)
        b_locs = torch.reshape(slocs, (batch_size, chunk_size, -1, 2 * total_hashes))
        b_locs1 = b_locs[:, :, :, None, :total_hashes]
        bq_locs = torch.reshape(b_locs1.expand(b_locs.shape[:3] + (2, total_hashes)),
                                b_locs.shape)
        bkv_locs = _look_one_back(b_locs)
        dup_counts = (bq_locs[:, :, :, None, :] == bkv_locs[:, :, None, :, :])
        # chunked_sum(dup_counts, chunks=(total_hashes * batch_size))
        *orig_size, last_dim = dup_counts.shape
        flat = r("chunked_sum_in")(dup_counts, -1, last_dim)
        summed = [c.sum(dim=-1) for c in flat.chunk(total_hashes * batch_size, dim=0)]
        dup_counts = r("chunked_sum_out")(torch.cat(summed, dim=0), orig_size)
        dots = dots - torch.log(dup_counts + 1e-9)
    dots_logsumexp = torch.logsumexp(dots, dim=-1, keepdim=True)
    dots = torch.exp(dots - dots_logsumexp).type_as(dots)
    bo = torch.einsum('buij,buje->buie', dots, bv)
    so = torch.reshape(bo, (batch_size, -1, dim))
    slogits = torch.reshape(dots_logsumexp, (batch_size, -1,))
    o = _gather(so, undo_sort)
    logits = slogits.gather(1, undo_sort)
    o = torch.reshape(o, (batch_size, total_hashes, seqlen, dim))
    logits = torch.reshape(logits, (batch_size, total_hashes, seqlen, 1))
    if query_len != seqlen:
        o, logits = o[:, :, :query_len], logits[:, :, :query_len]
    probs = torch.exp(logits - torch.logsumexp(logits, dim=1, keepdim=True))
    out = torch.sum(o * probs, dim=1)
    attn = torch.empty(0)
    if return_attn:
        attn_unsort = ((bq_t * seqlen)[:, :, :, None] + bkv_t[:, :, None, :])
        attn_unsort = attn_unsort.view(batch_size * total_hashes, -1).long()
        unsorted_dots = torch.zeros(batch_size * total_hashes, seqlen * seqlen)
        unsorted_dots.scatter_add_(1, attn_unsort, dots.view_as(attn_unsort))
        unsorted_dots = r("unsorted_dots")(unsorted_dots, batch_size, total_hashes, seqlen,
                                           seqlen)
        attn = torch.sum(unsorted_dots[:, :, 0:query_len, :] * probs, dim=1)
    return out, attn, buckets


def reformer_lsh_self_attn(mutant, which, b, t, heads, dh, l_h=0, bucket=4, n_hashes=2,
                           mem=0, chunks=1, input_mask=False, input_attn_mask=False,
                           allow_dup=True, record=True):
    # reformer_pytorch/reformer_pytorch.py LSHSelfAttention.forward, as Reformer/ReformerLM
    # build it (LSH attention, full_attn_thres 0); record: wrapped in recorder.Recorder, which
    # sets LSHAttention._return_attn and LSHSelfAttention.callback
    def r(name):
        return _pick(mutant, which, name)

    e = heads * dh
    x = torch.randn(b, t, e)
    mem_kv = torch.randn(1, mem, e)
    mem_x = mem_kv.expand(b, mem, -1)
    keys = torch.empty(b, 0, e)
    kv_len = t + mem
    x = torch.cat((x, mem_x, keys), dim=1)
    qk = torch.nn.Linear(e, e, bias=False)(x)
    v = torch.nn.Linear(e, e, bias=False)(x)

    def merge_dims(ind_from, ind_to, tensor):  # the module-level merge_dims(0, 1, ...)
        shape = list(tensor.shape)
        arr_slice = slice(ind_from, ind_to + 1)
        shape[arr_slice] = [shape[ind_from] * shape[ind_to]]
        return r("merge_dims")(tensor, *shape)

    def expand_dim(dim, k, tensor):
        tensor = tensor.unsqueeze(dim)
        expand_shape = [-1] * len(tensor.shape)
        expand_shape[dim] = k
        return tensor.expand(*expand_shape)

    qk, v = (u.view(b, kv_len, heads, -1).transpose(1, 2) for u in (qk, v))
    lsh_h = heads - l_h
    lqk, qk = qk[:, :l_h], qk[:, l_h:]
    lv, v = v[:, :l_h], v[:, l_h:]
    lqk, qk, lv, v = (merge_dims(0, 1, u) for u in (lqk, qk, lv, v))
    masks = {}
    if input_mask:
        i_mask = torch.rand(b, t) > 0.2
        i_mask[:, 0] = True
        mask = torch.cat((i_mask, torch.tensor([True]).expand(b, mem)), dim=1)
        masks["input_mask"] = merge_dims(0, 1, expand_dim(1, lsh_h, mask))
    if input_attn_mask:
        am = torch.rand(b, t, t) > 0.3
        am |= torch.eye(t, dtype=torch.bool)
        masks["input_attn_mask"] = merge_dims(0, 1, expand_dim(1, lsh_h, am))
    outs = []  # process_inputs_chunk(partial_attn_fn, chunks=attn_chunks)
    chunked = [u.chunk(chunks, dim=0) for u in [qk, v, *masks.values()]]
    for parts in zip(*chunked):
        kw = dict(zip(masks, parts[2:]))
        outs.append(_lsh_attention(r, parts[0], parts[1], bucket, n_hashes, t,
                                   allow_dup=allow_dup, return_attn=record, **kw))
    out, attn, buckets = (torch.cat(u, dim=0) for u in zip(*outs))
    recorded = None
    if record:  # self.callback(attn.reshape(b, lsh_h, t, -1), buckets.reshape(b, lsh_h, -1))
        recorded = (r("callback_attn")(attn, b, lsh_h, t, -1), buckets.reshape(b, lsh_h, -1))
    if l_h > 0:
        lqk, lv = lqk[:, :t], lv[:, :t]
        # self.local_attn(lqk, lqk, lv, input_mask=input_mask): local-attention's
        # LocalAttention (window bucket * 2, shared_qk) returns (b * l_h, t, dh); here a
        # windowed attention of the same shape stands in for it
        w = bucket * 2
        qw = lqk.reshape(-1, t // w, w, dh)
        local = torch.softmax(qw @ F.normalize(qw, dim=-1).transpose(-1, -2), dim=-1)
        local_out = (local @ lv.reshape(-1, t // w, w, dh)).reshape(-1, t, dh)
        local_out = r("local_out")(local_out, b, l_h, t, -1)
        out = torch.cat((local_out, out.reshape(b, lsh_h, t, -1)), dim=1)
    else:
        out = out.reshape(b, lsh_h, t, -1)
    out = out.transpose(1, 2).contiguous().view(b, t, -1)  # split_heads(out).view(b, t, -1)
    return out, recorded


def _reformer(which):
    return lambda mutant, **kw: reformer_lsh_self_attn(mutant, which, **kw)


REFORMER = [dict(b=1, t=16, heads=4, dh=8), dict(b=2, t=16, heads=4, dh=8),
            dict(b=2, t=16, heads=4, dh=8, l_h=2, mem=0, chunks=2),
            dict(b=1, t=24, heads=2, dh=8, mem=8, chunks=2),
            dict(b=3, t=8, heads=1, dh=16, bucket=2, n_hashes=4)]
REFORMER_MASKS = [dict(kw, input_mask=True, input_attn_mask=True) for kw in REFORMER]
REFORMER_NODUP = [dict(kw, allow_dup=False) for kw in REFORMER]

CASES = {
    "moshi_multinomial_in": (lambda mutant, **kw: moshi_multinomial(mutant, "in", **kw),
                             MOSHI_SAMPLING),
    "moshi_multinomial_out": (lambda mutant, **kw: moshi_multinomial(mutant, "out", **kw),
                              MOSHI_SAMPLING),
    "moshi_ce_targets": (lambda mutant, **kw: moshi_cross_entropy(mutant, "targets", **kw),
                         MOSHI_CE),
    "moshi_ce_mask": (lambda mutant, **kw: moshi_cross_entropy(mutant, "mask", **kw), MOSHI_CE),
    "moshi_expand_kv": (moshi_expand_kv, [dict(B=1, T=4, heads=8, kv_repeat=2, d=16),
                                          dict(B=2, T=1, heads=32, kv_repeat=4, d=8)]),
    "fastai_icnr_k": (lambda mutant, **kw: fastai_icnr(mutant, "k", **kw), FASTAI_ICNR),
    "fastai_icnr_out": (lambda mutant, **kw: fastai_icnr(mutant, "out", **kw), FASTAI_ICNR),
    "fastai_bn_flat": (fastai_bn_flat, [dict(src="randn", bs=32, seq=64, nh=15),
                                        dict(src="rnn", bs=1, seq=8, nh=16),
                                        dict(src="rnn", bs=64, seq=16, nh=32)]),
    "fastai_hist_scaled_np": (lambda mutant, **kw: fastai_hist_scaled(mutant, "np", **kw),
                              FASTAI_HIST),
    "fastai_hist_scaled_pt": (lambda mutant, **kw: fastai_hist_scaled(mutant, "pt", **kw),
                              FASTAI_HIST),
    "gluonts_deepar_samples": (gluonts_deepar_samples, [
        dict(B=1, n=100, P=24, nonnegative=False), dict(B=4, n=3, P=1, nonnegative=True),
        dict(B=2, n=1, P=7, nonnegative=False)]),
    "gluonts_mqf2_sliding": (gluonts_mqf2_sliding, [dict(B=1, C=48, P=24, energy=True),
                                                    dict(B=32, C=24, P=12, energy=True),
                                                    dict(B=2, C=8, P=4, energy=False)]),
    "gluonts_sff_out": (gluonts_sff_out, [dict(B=1, C=48, P=24, hidden=[20, 20]),
                                          dict(B=32, C=10, P=5, hidden=[40, 40, 40]),
                                          dict(B=3, C=4, P=1, hidden=[8])]),
    "gluonts_cpflows_hvp": (gluonts_cpflows_hvp, [dict(bsz=1, dim=24, hidden=16, context=8),
                                                  dict(bsz=96, dim=12, hidden=30, context=16),
                                                  dict(bsz=5, dim=1, hidden=4, context=4)]),
    "reformer_unsorted_dots": (_reformer("unsorted_dots"), REFORMER),
    "reformer_chunked_sum_in": (_reformer("chunked_sum_in"), REFORMER_NODUP),
    "reformer_chunked_sum_out": (_reformer("chunked_sum_out"), REFORMER_NODUP),
    "reformer_callback_attn": (_reformer("callback_attn"), REFORMER),
    "reformer_local_out": (_reformer("local_out"), [
        dict(b=1, t=16, heads=4, dh=8, l_h=1), dict(b=2, t=16, heads=4, dh=8, l_h=2),
        dict(b=2, t=24, heads=8, dh=4, l_h=4, mem=8, chunks=2, input_mask=True)]),
    "reformer_input_attn_mask": (_reformer("input_attn_mask"), REFORMER_MASKS),
    "reformer_mq": (_reformer("mq"), REFORMER_MASKS),
    "reformer_merge_dims": (_reformer("merge_dims"), REFORMER),
}

if __name__ == "__main__":
    run_all(CASES)
