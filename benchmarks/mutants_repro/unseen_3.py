"""Mutants drawn from moshi, fastai and gluonts (packages in none of contiglint's corpora;
k-diffusion and enformer-pytorch, first chosen, had fewer than 4 sites; reformer-pytorch's are
in unseen_4.py).
Run: python benchmarks/mutants_repro/unseen_3.py [CASE ...]
"""
import torch
import torch.nn.functional as F

from common import picked, reshaped, run_all


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
    input_ = picked(mutant, which, "in")(probs, -1, probs.shape[-1])
    q = torch.empty_like(input_).exponential_(1)
    output_ = (input_ / q).argmax(dim=-1, keepdim=True)
    output = picked(mutant, which, "out")(output_, *list(probs.shape[:-1]), -1)
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
    targets = picked(mutant, which, "targets")(targets, -1)
    mask = picked(mutant, which, "mask")(mask, -1)
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
        out.append(reshaped(mutant)(x, b, h * kv_repeat, t, dd))
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
    return reshaped(mutant)(t, px.shape).clamp(0., 1.)


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
    return reshaped(mutant)(out, -1, n, P)


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
    return reshaped(mutant)(z, -1, z.shape[-1])


def gluonts_sff_out(mutant, B, C, P, hidden):
    # gluonts/torch/model/simple_feedforward/module.py SimpleFeedForwardModel.forward
    past_target = torch.randn(B, C).abs()
    scaled = past_target / past_target.abs().mean(dim=1, keepdim=True).clamp(min=1e-10)
    dims = [C] + hidden[:-1]
    layers = []
    for i, o in zip(dims[:-1], dims[1:]):
        layers += [torch.nn.Linear(i, o), torch.nn.ReLU()]
    nn_out = torch.nn.Sequential(*layers, torch.nn.Linear(dims[-1], P * hidden[-1]))(scaled)
    return reshaped(mutant)(nn_out, -1, P, hidden[-1])


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
        return reshaped(mutant)(hvp, bsz, d).detach()


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
}

if __name__ == "__main__":
    run_all(CASES)
