"""Mutants of the second draw from speechbrain, segmentation-models-pytorch, torchrec,
pyannote-audio, gpytorch, torchrl and tensordict (tuning corpus).
Run: python benchmarks/mutants_repro/sb_smp_gp_rl_2.py [CASE ...]
"""
import warnings

import torch
import torch.nn.functional as F

from common import raw, reshaped, run_all


def sb_over_add_halves(mutant, B, N, K, S):
    # speechbrain/lobes/models/dual_path.py Dual_Path_Model._over_add (after the first view)
    inp = torch.randn(B, N, K, S).transpose(2, 3).contiguous().view(B, N, -1, K * 2)
    first = inp[:, :, :, :K]
    return (first if mutant else first.contiguous()).view(B, N, -1)[:, :, K // 2:]


def sb_segmentation(mutant, B, N, L, K):
    # speechbrain/lobes/models/dual_path.py Dual_Path_Model._Segmentation: input after _padding
    # (torch.cat with zero pads: contiguous)
    P = K // 2
    gap = K - (P + L % K) % K
    inp = torch.randn(B, N, L)
    inp = torch.cat([torch.zeros(B, N, P), inp, torch.zeros(B, N, P + gap % K)], dim=2)
    part = inp[:, :, :-P]
    return (part if mutant else part.contiguous()).view(B, N, -1, K)


def sb_transformer_st_src(mutant, B, T, F_, C):
    # speechbrain/lobes/models/transformer/TransformerST.py forward: a 4-D src is the CNN front
    # end's output; speechbrain's Conv2d (nnet/CNN.py) works channels-last: transpose(1, -1),
    # conv, transpose(1, -1)
    x = torch.randn(B, T, F_, 1).transpose(1, -1)
    x = torch.nn.Conv2d(1, C, 3, padding=1)(x).transpose(1, -1)
    bz, t, ch1, ch2 = x.shape
    return reshaped(mutant)(x, bz, t, ch1 * ch2)


def sb_drop_freq(mutant, B, T, C):
    # speechbrain/augment/time_domain.py DropFreq.forward: waveforms.clone() of a (B, T, C) batch
    dropped = torch.randn(B, T, C).clone()
    return reshaped(mutant)(dropped, dropped.shape[0] * dropped.shape[2], dropped.shape[1], 1)


def smp_dice_true(mutant, mode, bs, C, H, W):
    # segmentation_models_pytorch/losses/dice.py DiceLoss.forward: the target mask
    y_true = (torch.rand(bs, C, H, W) > 0.5).long() if mode == "multilabel" else \
        torch.randint(0, 2, (bs, H, W))
    return reshaped(mutant)(y_true, bs, 1 if mode == "binary" else C, -1)


def smp_mit_out(mutant, B, heads, N, hd):
    # segmentation_models_pytorch/encoders/mix_transformer.py Attention.forward
    attn = torch.randn(B, heads, N, N).softmax(-1)
    x = (attn @ torch.randn(B, heads, N, hd)).transpose(1, 2)
    return reshaped(mutant)(x, B, N, heads * hd)


def smp_mit_kv(mutant, B, N, C, heads):
    # segmentation_models_pytorch/encoders/mix_transformer.py: kv = self.kv(x), a linear layer
    kv = torch.nn.Linear(C, 2 * C)(torch.randn(B, N, C))
    return reshaped(mutant)(kv, B, -1, 2, heads, C // heads).permute(2, 0, 3, 1, 4)


def rec_quint4x2(mutant, rows, cols):
    # torchrec/modules/utils.py _maybe_quint4x2_to_int8: int_repr() of a quint4x2 table is 1-D
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        emb = torch.quantize_per_tensor(torch.rand(rows, cols), 0.1, 0, torch.quint4x2)
        return reshaped(mutant)(emb.int_repr(), [emb.shape[0], int((emb.shape[1] + 1) // 2)])


def pyannote_validation(mutant, which, B, frames, classes, left, right):
    # pyannote/audio/tasks/segmentation/mixins.py validation_step: every tenth frame past the
    # warm-up, of the model output and of the target
    y_pred, y = torch.rand(B, frames, classes), torch.randint(0, 2, (B, frames, classes))
    preds = y_pred[:, left: frames - right: 10]
    target = y[:, left: frames - right: 10]
    t = preds if which == "preds" else target
    return reshaped(mutant)(t, -1)


def pyannote_totatonet(mutant, bsz, n_sources, frames):
    # pyannote/audio/models/separation/ToTaToNet.py: outputs = classifier(outputs), nn.Linear
    outputs = torch.nn.Linear(16, 3)(torch.randn(bsz * n_sources, frames, 16))
    return reshaped(mutant)(outputs, bsz, n_sources, -1).transpose(1, 2)


def gp_poly_grad_pi(mutant, n1, d):
    # gpytorch/kernels/polynomial_kernel_grad.py PolynomialKernelGrad.forward, diag=True
    return reshaped(mutant)(torch.arange(n1 * (d + 1)).view(d + 1, n1).t(), n1 * (d + 1))


def gp_rbf_gradgrad_diag(mutant, batch, n2, d):
    # gpytorch/kernels/rbf_kernel_gradgrad.py RBFKernelGradGrad.forward, diag=True
    lengthscale = torch.rand(1, d) + 0.5
    gg = 3 * torch.ones(*batch, n2, d) / lengthscale.pow(4)
    return reshaped(mutant)(gg.transpose(-1, -2), *batch, n2 * d)


def gp_poly_grad_k12(mutant, batch, n1, n2, d):
    # gpytorch/kernels/polynomial_kernel_grad.py PolynomialKernelGrad.forward, full kernel
    x1, x2 = torch.randn(*batch, n1, d), torch.randn(*batch, n2, d)
    K12_base = 2 * (torch.matmul(x1, x2.transpose(-2, -1)) + 1)
    ones_ = torch.ones(*batch, d, 1, n2)
    outer = torch.matmul(x1.transpose(-2, -1).unsqueeze(-1), ones_)
    K12 = (K12_base.unsqueeze(-3) * outer).transpose(-3, -2)
    return reshaped(mutant)(K12, *batch, n1, d * n2)


def gp_newton_girard_ks(mutant, ndim, deg):
    # gpytorch/kernels/newton_girard_additive_kernel.py: the exponents 1..deg as a column
    shape = [1] * ndim
    shape[-3] = -1
    return reshaped(mutant)(torch.arange(1, deg + 1, dtype=torch.float), *shape)


def rl_stack_pad(mutant, layers, hidden, pad):
    # torchrl/modules/models/_dreamer_v3_block_gru_triton.py forward: the stacked, padded biases
    # passed by pointer to _block_gru_fwd_kernel
    t = torch.stack([F.pad(torch.randn(hidden), (0, pad)) for _ in range(layers)])
    return raw(t if mutant else t.contiguous())


def rl_projected_input(mutant, batch, time, inp, proj, dtype):
    # torchrl/modules/models/_dreamer_v3_block_gru_triton.py: projected_input as
    # DreamerV3BlockGRU.forward makes it (a linear layer on input.flatten(0, 1), unflattened)
    x = torch.randn(batch, time, inp)
    p = torch.nn.Linear(inp, proj)(x.flatten(0, 1)).unflatten(0, (batch, time)).to(dtype)
    return raw(p if mutant else p.contiguous())


def rl_openvla_window(mutant, B, T, chunk, action_dim, bins, vocab, top_k):
    # torchrl sota-implementations/vla_grpo/openvla.py: window is the action bins' logits of the
    # last tokens, divided by the temperature (and masked to the top k)
    logits = torch.randn(B, T, vocab)
    window = logits[:, -chunk * action_dim:, -bins:].float() / 0.7
    if top_k is not None:
        indices = torch.argsort(window, dim=-1, descending=True, stable=True)[..., :top_k]
        window = torch.full_like(window, -torch.inf).scatter(-1, indices,
                                                             torch.gather(window, -1, indices))
    return reshaped(mutant)(window, B, chunk, action_dim, bins)


def rl_simplevla_tokens(mutant, n, L, vocab, bins):
    # torchrl sota-implementations/vla_grpo/compare_simplevla_rollouts.py: one row of the
    # rollout's responses, shifted to bin indices
    responses = torch.randint(0, vocab, (n, L)).long()
    tokens = responses[0].long() - (vocab - bins)
    return reshaped(mutant)(tokens, -1)[:32]


def td_positions(mutant, batch, shape):
    # tensordict/tensorclass.py NonTensorStack._reshape: positions = arange(numel).view(batch)
    positions = torch.arange(torch.Size(batch).numel()).view(batch)
    return reshaped(mutant)(positions, shape)


def td_store_slice(mutant, rows, cols, index):
    # tensordict/store/_store.py: the covering byte range as a (-1, ...) tensor, indexed by the
    # local index; result_shape is that indexing's shape (_getitem_result_shape)
    tensor = torch.frombuffer(bytearray(torch.randn(rows, cols).numpy().tobytes()),
                              dtype=torch.float32).view(-1, cols)
    tensor = tensor[index]
    return reshaped(mutant)(tensor, list(tensor.shape))


CASES = {
    "sb_over_add_halves": (sb_over_add_halves, [dict(B=2, N=4, K=10, S=6),
                                                dict(B=1, N=4, K=10, S=2)]),
    "sb_segmentation": (sb_segmentation, [dict(B=2, N=4, L=53, K=10)]),
    "sb_transformer_st_src": (sb_transformer_st_src, [dict(B=2, T=7, F_=20, C=4)]),
    "sb_drop_freq": (sb_drop_freq, [dict(B=2, T=100, C=2), dict(B=1, T=50, C=1)]),
    "smp_dice_true_binary": (lambda mutant, **kw: smp_dice_true(mutant, "binary", **kw),
                             [dict(bs=2, C=1, H=8, W=8)]),
    "smp_dice_true_multilabel": (lambda mutant, **kw: smp_dice_true(mutant, "multilabel", **kw),
                                 [dict(bs=2, C=3, H=8, W=8)]),
    "smp_mit_out": (smp_mit_out, [dict(B=2, heads=2, N=16, hd=8)]),
    "smp_mit_kv": (smp_mit_kv, [dict(B=2, N=16, C=32, heads=2)]),
    "rec_quint4x2": (rec_quint4x2, [dict(rows=4, cols=6), dict(rows=3, cols=8)]),
    "pyannote_validation_preds": (lambda mutant, **kw: pyannote_validation(mutant, "preds", **kw),
                                  [dict(B=2, frames=589, classes=3, left=0, right=0)]),
    "pyannote_validation_target": (
        lambda mutant, **kw: pyannote_validation(mutant, "target", **kw),
        [dict(B=2, frames=589, classes=3, left=0, right=0)]),
    "pyannote_totatonet": (pyannote_totatonet, [dict(bsz=2, n_sources=3, frames=10)]),
    "gp_poly_grad_pi": (gp_poly_grad_pi, [dict(n1=1, d=1), dict(n1=5, d=2)]),
    "gp_rbf_gradgrad_diag": (gp_rbf_gradgrad_diag, [dict(batch=(), n2=5, d=2)]),
    "gp_poly_grad_k12": (gp_poly_grad_k12, [dict(batch=(), n1=4, n2=3, d=2)]),
    "gp_newton_girard_ks": (gp_newton_girard_ks, [dict(ndim=3, deg=2), dict(ndim=4, deg=3)]),
    "rl_stack_pad": (rl_stack_pad, [dict(layers=2, hidden=48, pad=16)]),
    "rl_projected_input": (rl_projected_input, [dict(batch=4, time=8, inp=10, proj=32,
                                                     dtype=torch.float32),
                                                dict(batch=4, time=8, inp=10, proj=32,
                                                     dtype=torch.bfloat16)]),
    "rl_openvla_window": (rl_openvla_window, [
        dict(B=2, T=20, chunk=2, action_dim=7, bins=16, vocab=40, top_k=None),
        dict(B=2, T=20, chunk=2, action_dim=7, bins=16, vocab=40, top_k=4)]),
    "rl_simplevla_tokens": (rl_simplevla_tokens, [dict(n=3, L=70, vocab=300, bins=256)]),
    "td_positions": (td_positions, [dict(batch=(3, 4), shape=(12,)), dict(batch=(6,),
                                                                          shape=(2, 3))]),
    "td_store_slice": (td_store_slice, [dict(rows=10, cols=4, index=slice(1, 9, 2)),
                                        dict(rows=10, cols=4, index=3),
                                        dict(rows=10, cols=4, index=torch.tensor([0, 2, 5]))]),
}

if __name__ == "__main__":
    run_all(CASES)
