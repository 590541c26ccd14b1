"""Mutants drawn from litgpt and asteroid (packages in none of contiglint's corpora).
Run: python benchmarks/mutants_repro/unseen_litgpt_asteroid.py [CASE ...]
"""
import torch
import torch.nn as nn
import torch.nn.functional as F

from common import run_all


def _targets(B, T):
    # litgpt/finetune/*.py pass targets[..., 1:] of the batch's labels to chunked_cross_entropy
    return torch.randint(0, 50, (B, T + 1))[..., 1:]


def lit_ce_targets(mutant, B, T):
    # litgpt/utils.py chunked_cross_entropy, tensor logits (finetune/full.py:284, 375); the
    # targets are flattened before the chunk size is looked at
    logits = torch.randn(B, T + 1, 50)[..., :-1, :].reshape(-1, 50)
    targets = _targets(B, T)
    targets = targets.view(-1) if mutant else targets.reshape(-1)
    return F.cross_entropy(logits, targets)


def lit_ce_list(mutant, which, B, T, chunk):
    # litgpt/utils.py chunked_cross_entropy, logits as a list of (B, chunk, V) lm_head chunks
    # (GPT.forward with lm_head_chunk_size > 0; finetune/lora.py:358 passes targets[..., 1:])
    logits = [torch.randn(B, chunk, 50) for _ in range(T // chunk)]
    targets = _targets(B, T)
    r = (lambda t, *s: t.view(*s)) if mutant else (lambda t, *s: t.reshape(*s))
    if which == "cat_logits":  # chunk_size == 0: cat, then flatten
        cat = torch.cat(logits, dim=1)
        return F.cross_entropy(r(cat, -1, cat.size(-1)), targets.reshape(-1))
    if which == "cat_targets":
        cat = torch.cat(logits, dim=1).reshape(-1, 50)
        return F.cross_entropy(cat, r(targets, -1))
    chunks = [c.reshape(-1, 50) for c in logits]  # which == "split_targets"
    tchunks = [r(t, -1) for t in targets.split(chunk, dim=1)]
    return torch.cat([F.cross_entropy(c, t, reduction="none") for c, t in zip(chunks, tchunks)])


def lit_group_mask(mutant, tokens, n_expert, groups, topk_groups):
    # litgpt/model.py get_topk_indices (grouped expert routing)
    group_scores = torch.rand(tokens, groups)
    group_idx = torch.topk(group_scores, k=topk_groups, dim=-1, sorted=False)[1]
    group_mask = torch.zeros_like(group_scores).scatter_(1, group_idx, 1)
    m = group_mask.unsqueeze(-1).expand(-1, groups, n_expert // groups)
    return m.view(-1, n_expert) if mutant else m.reshape(-1, n_expert)


def lit_attn_out(mutant, B, T, n_head, hs):
    # litgpt/model.py CausalSelfAttention.forward: y is scaled_dot_product_attention's
    # result, which ends with y.transpose(1, 2)
    q, k, v = (torch.randn(B, n_head, T, hs) for _ in range(3))
    y = F.scaled_dot_product_attention(q, k, v, is_causal=True).transpose(1, 2)
    return y.view(B, T, n_head * hs) if mutant else y.reshape(B, T, n_head * hs)


def lit_batched_index_select(mutant, B, T, block):
    # litgpt/model.py batched_index_select(self.cos, 0, input_pos) with a 2-D batch of positions
    t = torch.randn(block, 16)
    idx = torch.stack([torch.arange(T) + b for b in range(B)])
    *batch_shape, idx_size = idx.shape
    flat = idx.view(-1) if mutant else idx.reshape(-1)
    res = torch.index_select(t, 0, flat)
    return res.view(*t.shape[:0], -1, idx_size, *t.shape[1:])


def lit_rope_interleave(mutant, B, heads, T, d):
    # litgpt/model.py apply_rope_interleave: x is (B, nh, T, hs)
    x = torch.randn(B, heads, T, d)
    *batch_dims, d = x.shape
    x = x.view(*batch_dims, d // 2, 2).transpose(-1, -2)
    return x.view(*batch_dims, d) if mutant else x.reshape(*batch_dims, d)


def ast_xumx_stft(mutant, samples, channels, n_fft, hop, timesteps):
    # asteroid/models/x_umx.py _STFT.forward
    x = torch.randn(samples, channels, timesteps).reshape(samples * channels, -1)
    stft_f = torch.stft(x, n_fft=n_fft, hop_length=hop, window=torch.hann_window(n_fft),
                        center=True, normalized=False, onesided=True, pad_mode="reflect",
                        return_complex=True)
    stft_f = torch.view_as_real(stft_f)  # what return_complex=False returns
    stft_f = stft_f if mutant else stft_f.contiguous()
    return stft_f.view(samples, channels, n_fft // 2 + 1, -1, 2)


def _fasnet_folded(batch, mics, n_src, filter_dim, seq_length):
    folded = torch.randn(batch * mics * n_src, filter_dim, seq_length)
    folded = torch.tanh(folded) * torch.sigmoid(folded)
    return folded.view(batch, mics, n_src, -1, seq_length)


def ast_fasnet_filter(mutant, batch, mics, n_src, filter_dim, seq_length):
    # asteroid/models/fasnet.py FasNetTAC.forward: the beamforming filters
    folded = _fasnet_folded(batch, mics, n_src, filter_dim, seq_length).transpose(3, -1)
    return (folded if mutant else folded.contiguous()).view(-1, 1, filter_dim)


def ast_fasnet_bf_output(mutant, batch, mics, n_src, seq_length, window, context):
    # asteroid/models/fasnet.py: the grouped conv1d's output, viewed
    ctx = torch.randn(1, batch * mics * n_src * seq_length, context * 2 + window)
    filt = torch.randn(batch * mics * n_src * seq_length, 1, 2 * context + 1)
    out = F.conv1d(ctx, filt, groups=batch * mics * n_src * seq_length)
    out = out.view(batch, mics, n_src, seq_length, window)
    shape = (batch * mics * n_src, seq_length, window)
    return (out.view(shape) if mutant else out.reshape(shape)).transpose(1, -1)


def ast_fasnet_cos_sim(mutant, batch, mics, seq_length, window, context):
    # asteroid/models/fasnet.py: all_cos_sim = xcorr(...), which returns
    # out.view(mics, bsz, -1).permute(1, 0, 2).contiguous() (asteroid/dsp/spatial.py)
    out = torch.randn(1, mics * batch * seq_length, 2 * context + 1)
    cos = out.view(mics, batch * seq_length, -1).permute(1, 0, 2).contiguous()
    shape = (batch, seq_length, mics, context * 2 + 1)
    return (cos.view(shape) if mutant else cos.reshape(shape)).permute(0, 2, 3, 1)


class _Separator(nn.Module):
    """An asteroid encoder-masker-decoder's output: decoded, then cut to the input's length."""

    def __init__(self, n_src):
        super().__init__()
        self.dec = nn.ConvTranspose1d(4 * n_src, n_src, 4, stride=2)
        self.n_src = n_src

    def forward(self, x):
        decoded = self.dec(torch.randn(x.shape[0], 4 * self.n_src, x.shape[-1] // 2))
        return decoded[..., :x.shape[-1]]


def ast_ola(mutant, which, batch, n_frames, window, hop, n_src):
    # asteroid/dsp/overlap_add.py LambdaOverlapAdd.ola_forward
    x = torch.randn(batch, 1, n_frames)
    unfolded = F.unfold(x.unsqueeze(-1), kernel_size=(window, 1), padding=(window, 0),
                        stride=(hop, 1))
    nnet = _Separator(n_src)
    out = []
    for i in range(unfolded.shape[-1]):
        frame = nnet(unfolded[..., i].unsqueeze(1))
        if which == "frame" and mutant:
            frame = frame.view(batch * n_src, -1)
        else:
            frame = frame.reshape(batch * n_src, -1)
        out.append(frame / (window / hop))
    stacked = torch.stack(out)
    shape = (len(out), batch * n_src, window)
    return stacked.view(shape) if which == "stack" and mutant else stacked.reshape(shape)


def ast_tac_mean(mutant, batch, mics, chunk, n_chunks, hidden, valid):
    # asteroid/masknn/tac.py TAC.forward, valid_mics given or all mics valid (the other branch,
    # valid_mics.max() == 0, fails in the original's reshape already)
    output = torch.randn(batch, chunk, n_chunks, mics, hidden)
    counts = [mics - b for b in range(batch)] if valid else [mics] * batch
    mm = torch.cat([output[b, :, :, :counts[b]].mean(2).unsqueeze(0) for b in range(batch)])
    shape = (batch * chunk * n_chunks, hidden)
    return mm.view(shape) if mutant else mm.reshape(shape)


def ast_dprnn_intra(mutant, B, N, K, L, hidden):
    # asteroid/masknn/recurrent.py DPRNNBlock.forward: x = intra_linear(intra_RNN(x))
    x = torch.randn(B, N, K, L).transpose(1, -1).reshape(B * L, K, N)
    x, _ = nn.LSTM(N, hidden, batch_first=True, bidirectional=True)(x)
    x = nn.Linear(2 * hidden, N)(x)
    return (x.view(B, L, K, N) if mutant else x.reshape(B, L, K, N)).transpose(1, -1)


CASES = {
    "lit_ce_targets": (lit_ce_targets, [dict(B=1, T=8), dict(B=4, T=8)]),
    "lit_ce_list_cat_logits": (lambda mutant, **kw: lit_ce_list(mutant, "cat_logits", **kw),
                               [dict(B=2, T=8, chunk=4), dict(B=1, T=4, chunk=4)]),
    "lit_ce_list_cat_targets": (lambda mutant, **kw: lit_ce_list(mutant, "cat_targets", **kw),
                                [dict(B=1, T=8, chunk=4), dict(B=2, T=8, chunk=4)]),
    "lit_ce_list_split_targets": (
        lambda mutant, **kw: lit_ce_list(mutant, "split_targets", **kw),
        [dict(B=1, T=8, chunk=4), dict(B=2, T=8, chunk=4)]),
    "lit_group_mask": (lit_group_mask, [dict(tokens=6, n_expert=64, groups=8, topk_groups=4),
                                        dict(tokens=1, n_expert=8, groups=8, topk_groups=2)]),
    "lit_attn_out": (lit_attn_out, [dict(B=1, T=1, n_head=4, hs=8), dict(B=2, T=5, n_head=4,
                                                                         hs=8)]),
    "lit_batched_index_select": (lit_batched_index_select, [dict(B=2, T=3, block=16)]),
    "lit_rope_interleave": (lit_rope_interleave, [dict(B=2, heads=4, T=5, d=16)]),
    "ast_xumx_stft": (ast_xumx_stft, [dict(samples=2, channels=2, n_fft=64, hop=16,
                                           timesteps=512),
                                      dict(samples=1, channels=1, n_fft=4096, hop=1024,
                                           timesteps=44100)]),
    "ast_fasnet_filter": (ast_fasnet_filter, [dict(batch=2, mics=4, n_src=2, filter_dim=33,
                                                   seq_length=10)]),
    "ast_fasnet_bf_output": (ast_fasnet_bf_output, [dict(batch=2, mics=2, n_src=2, seq_length=5,
                                                         window=16, context=16)]),
    "ast_fasnet_cos_sim": (ast_fasnet_cos_sim, [dict(batch=2, mics=4, seq_length=5, window=16,
                                                     context=16)]),
    "ast_ola_frame": (lambda mutant, **kw: ast_ola(mutant, "frame", **kw), [
        dict(batch=2, n_frames=64, window=16, hop=8, n_src=2)]),
    "ast_ola_stack": (lambda mutant, **kw: ast_ola(mutant, "stack", **kw), [
        dict(batch=2, n_frames=64, window=16, hop=8, n_src=2)]),
    "ast_tac_mean": (ast_tac_mean, [dict(batch=2, mics=4, chunk=5, n_chunks=3, hidden=8,
                                         valid=True),
                                    dict(batch=2, mics=4, chunk=5, n_chunks=3, hidden=8,
                                         valid=False)]),
    "ast_dprnn_intra": (ast_dprnn_intra, [dict(B=2, N=8, K=10, L=6, hidden=4)]),
}

if __name__ == "__main__":
    run_all(CASES)
