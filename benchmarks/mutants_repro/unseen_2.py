"""Mutants of the second draw from litgpt, asteroid, segment-anything and rwkv (packages in none
of contiglint's corpora). Run: python benchmarks/mutants_repro/unseen_2.py [CASE ...]
"""
import torch
import torch.nn.functional as F

from common import reshaped, run_all


def lit_ce_logits(mutant, B, T, V):
    # litgpt/utils.py chunked_cross_entropy, tensor logits: finetune/full.py:284 passes
    # logits[..., :-1, :] (and targets[..., 1:])
    logits = torch.nn.Linear(8, V)(torch.randn(B, T + 1, 8))[..., :-1, :]
    return reshaped(mutant)(logits, -1, logits.size(-1))


def lit_ce_logit_chunks(mutant, B, chunk, n, V):
    # litgpt/utils.py chunked_cross_entropy, a list of lm_head chunks (GPT.forward with
    # lm_head_chunk_size: self.lm_head(x_i) for x_i in x.split(chunk, dim=1))
    x = torch.randn(B, chunk * n, 8)
    head = torch.nn.Linear(8, V)
    return [reshaped(mutant)(head(x_i), -1, V) for x_i in x.split(chunk, dim=1)]


def lit_adapter_prefix(mutant, aT, n_embd):
    # litgpt/adapter.py CausalSelfAttention.scaled_dot_product_attention: an nn.Embedding weight
    weight = torch.nn.Embedding(aT, n_embd).weight
    return reshaped(mutant)(weight, 1, aT, n_embd)


def lit_attn_out_mha(mutant, B, T, n_head, head_size):
    # litgpt/model.py (the MLA attention's forward): y = scaled_dot_product_attention(...), which
    # returns y.transpose(1, 2)
    q, k, v = (torch.randn(B, n_head, T, head_size) for _ in range(3))
    y = F.scaled_dot_product_attention(q, k, v, is_causal=True).transpose(1, 2)
    return reshaped(mutant)(y, B, T, head_size * n_head)


def ast_dual_path_fold(mutant, batch, chan, chunk, hop, frames):
    # asteroid/dsp/overlap_add.py DualPathProcessing.fold
    n_chunks = (frames + 2 * chunk - chunk) // hop + 1
    x = torch.randn(batch, chan, chunk, n_chunks)
    output_size = frames + 2 * chunk  # the padded length; the fold crops it back
    to_unfold = x.reshape(batch, chan * chunk, n_chunks)
    x = F.fold(to_unfold, (output_size - 2 * chunk, 1), kernel_size=(chunk, 1),
               padding=(chunk, 0), stride=(hop, 1))
    x /= float(chunk) / hop
    return reshaped(mutant)(x, batch, chan, frames)


def ast_fasnet_tac(mutant, batch, mics, ch, chunk, n_chunks):
    # asteroid/models/fasnet.py: tac(unfolded, valid_mics) returns norm(...).reshape(...) + x
    # (asteroid/masknn/tac.py TAC.forward)
    x = torch.randn(batch, mics, ch, chunk, n_chunks)
    out = torch.randn(batch, chunk, n_chunks, mics, ch)
    out = out.permute(0, 3, 4, 1, 2).reshape(batch * mics, -1, chunk, n_chunks)
    out = F.group_norm(out, 1).reshape(batch, mics, -1, chunk, n_chunks)
    out += x
    return reshaped(mutant)(out, batch * mics, ch, chunk, n_chunks)


def ast_fasnet_enc_ln(mutant, batch, mics, enc_dim, seq):
    # asteroid/models/fasnet.py: self.enc_LN (a norm layer) on a contiguous (B * M, E, L)
    enc_output = torch.randn(batch * mics, seq, enc_dim).transpose(1, 2).contiguous()
    enc_output = F.group_norm(enc_output, 1)
    return reshaped(mutant)(enc_output, batch, mics, enc_dim, seq)


def ast_dprnn_first_out(mutant, batch, n_src, bn_chan, chunk, n_chunks):
    # asteroid/masknn/recurrent.py DPRNN.forward: first_out is PReLU then Conv2d
    output = torch.randn(batch, bn_chan, chunk, n_chunks)
    output = torch.nn.Conv2d(bn_chan, n_src * bn_chan, 1)(F.prelu(output, torch.tensor([0.25])))
    return reshaped(mutant)(output, batch * n_src, bn_chan, chunk, n_chunks)


def sam_embed_boxes(mutant, shape):
    # segment_anything/modeling/prompt_encoder.py PromptEncoder._embed_boxes: boxes + 0.5
    boxes = torch.rand(*shape) * 1024 + 0.5
    return reshaped(mutant)(boxes, -1, 2, 2)


def sam_rel_pos_q(mutant, B, heads, H, W, hd):
    # segment_anything/modeling/image_encoder.py add_decomposed_rel_pos: q is one of
    # qkv.reshape(3, B * heads, H * W, -1).unbind(0)
    qkv = torch.randn(B, H * W, 3 * heads * hd).reshape(B, H * W, 3, heads, -1)
    q, _, _ = qkv.permute(2, 0, 3, 1, 4).reshape(3, B * heads, H * W, -1).unbind(0)
    return reshaped(mutant)(q, B * heads, H, W, hd)


def sam_qkv_split(mutant, B, H, W, heads, hd):
    # segment_anything/modeling/image_encoder.py Attention.forward: B is the batch of images in
    # the global blocks, the batch times the windows (25 for a 64 x 64 map, window 14) in the
    # windowed blocks
    qkv = torch.randn(B, H * W, 3 * heads * hd).reshape(B, H * W, 3, heads, -1)
    qkv = qkv.permute(2, 0, 3, 1, 4)
    return reshaped(mutant)(qkv, 3, B * heads, H * W, -1).unbind(0)


def rwkv_load_time_first(mutant, which, H, N):
    # rwkv/model.py RWKV.__init__: time_first / time_decay as loaded (torch.load: contiguous)
    w = torch.randn(H, N).float() if which != "decay_52" else torch.exp(
        -torch.exp(torch.randn(H * N).float())).reshape(-1, 1, 1)
    if which == "first":
        return reshaped(mutant)(w, -1, 1, 1)
    if which == "first_52":
        return reshaped(mutant)(w, H, -1, 1)
    return reshaped(mutant)(w, H, -1, 1)


def rwkv_ws(mutant, H, T):
    # rwkv/model.py att_seq_v5_1: w = t_decay.reshape(-1, 1); ws = w.pow(T).reshape(H, 1, 1)
    w = torch.exp(-torch.exp(torch.randn(H).float())).reshape(-1, 1, 1).reshape(-1, 1)
    return reshaped(mutant)(w.pow(T), H, 1, 1)


CASES = {
    "lit_ce_logits": (lit_ce_logits, [dict(B=1, T=8, V=50), dict(B=4, T=8, V=50)]),
    "lit_ce_logit_chunks": (lit_ce_logit_chunks, [dict(B=2, chunk=4, n=3, V=50)]),
    "lit_adapter_prefix": (lit_adapter_prefix, [dict(aT=10, n_embd=32)]),
    "lit_attn_out_mha": (lit_attn_out_mha, [dict(B=1, T=1, n_head=4, head_size=8),
                                            dict(B=2, T=5, n_head=4, head_size=8)]),
    "ast_dual_path_fold": (ast_dual_path_fold, [dict(batch=2, chan=4, chunk=10, hop=5,
                                                     frames=53)]),
    "ast_fasnet_tac": (ast_fasnet_tac, [dict(batch=2, mics=4, ch=8, chunk=5, n_chunks=3)]),
    "ast_fasnet_enc_ln": (ast_fasnet_enc_ln, [dict(batch=2, mics=4, enc_dim=16, seq=7)]),
    "ast_dprnn_first_out": (ast_dprnn_first_out, [dict(batch=2, n_src=2, bn_chan=8, chunk=10,
                                                       n_chunks=5)]),
    "sam_embed_boxes": (sam_embed_boxes, [dict(shape=(3, 4)), dict(shape=(2, 1, 4))]),
    "sam_rel_pos_q": (sam_rel_pos_q, [dict(B=1, heads=12, H=14, W=14, hd=8)]),
    "sam_qkv_split": (sam_qkv_split, [dict(B=1, H=64, W=64, heads=12, hd=8),
                                      dict(B=25, H=14, W=14, heads=12, hd=8)]),
    "rwkv_load_time_first": (lambda mutant, **kw: rwkv_load_time_first(mutant, "first", **kw),
                             [dict(H=32, N=64)]),
    "rwkv_load_time_first_52": (
        lambda mutant, **kw: rwkv_load_time_first(mutant, "first_52", **kw), [dict(H=32, N=64)]),
    "rwkv_load_time_decay_52": (
        lambda mutant, **kw: rwkv_load_time_first(mutant, "decay_52", **kw), [dict(H=32, N=64)]),
    "rwkv_ws": (rwkv_ws, [dict(H=32, T=5), dict(H=4, T=1)]),
}

if __name__ == "__main__":
    run_all(CASES)
