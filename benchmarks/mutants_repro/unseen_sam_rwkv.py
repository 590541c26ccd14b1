"""Mutants drawn from segment-anything and rwkv (packages in none of contiglint's corpora).
Run: python benchmarks/mutants_repro/unseen_sam_rwkv.py [CASE ...]
"""
import torch
import torch.nn.functional as F

from common import run_all


def sam_window_partition(mutant, B, H, W, C, ws):
    # segment_anything/modeling/image_encoder.py window_partition (ViT-B: 64x64 tokens, 14)
    x = torch.randn(B, H, W, C)
    pad_h, pad_w = (ws - H % ws) % ws, (ws - W % ws) % ws
    x = F.pad(x, (0, 0, 0, pad_w, 0, pad_h))
    Hp, Wp = H + pad_h, W + pad_w
    x = x.view(B, Hp // ws, ws, Wp // ws, ws, C).permute(0, 1, 3, 2, 4, 5)
    return (x if mutant else x.contiguous()).view(-1, ws, ws, C)


def sam_window_unpartition(mutant, B, Hp, Wp, C, ws):
    # segment_anything/modeling/image_encoder.py window_unpartition
    windows = torch.randn(B * (Hp // ws) * (Wp // ws), ws, ws, C)
    x = windows.view(B, Hp // ws, Wp // ws, ws, ws, -1).permute(0, 1, 3, 2, 4, 5)
    return (x if mutant else x.contiguous()).view(B, Hp, Wp, -1)


def sam_rel_pos(mutant, which, L, C, q_size):
    # segment_anything/modeling/image_encoder.py get_rel_pos: rel_pos is the (L, C) parameter
    rel_pos = torch.nn.Parameter(torch.randn(L, C)).data
    max_rel_dist = int(2 * q_size - 1)
    r = (lambda t, *s: t.view(*s)) if mutant else (lambda t, *s: t.reshape(*s))
    first = r(rel_pos, 1, L, -1) if which == "param" else rel_pos.reshape(1, L, -1)
    resized = F.interpolate(first.permute(0, 2, 1), size=max_rel_dist, mode="linear")
    second = r(resized, -1, max_rel_dist) if which == "resized" else resized.reshape(
        -1, max_rel_dist)
    return second.permute(1, 0)


def sam_mask_to_box(mutant, shape):
    # segment_anything/utils/amg.py batched_mask_to_box
    masks = torch.rand(*shape) > 0.7
    h, w = shape[-2:]
    masks = masks.flatten(0, -3)
    in_height, _ = torch.max(masks, dim=-1)
    coords = in_height * torch.arange(h)[None, :]
    bottom, _ = torch.max(coords, dim=-1)
    top, _ = torch.min(coords + h * (~in_height), dim=-1)
    in_width, _ = torch.max(masks, dim=-2)
    coords = in_width * torch.arange(w)[None, :]
    right, _ = torch.max(coords, dim=-1)
    left, _ = torch.min(coords + w * (~in_width), dim=-1)
    empty = (right < left) | (bottom < top)
    out = torch.stack([left, top, right, bottom], dim=-1) * (~empty).unsqueeze(-1)
    return out.view(*shape[:-2], 4) if mutant else out.reshape(*shape[:-2], 4)


def sam_attention_out(mutant, B, H, W, heads, hd):
    # segment_anything/modeling/image_encoder.py Attention.forward
    attn = torch.randn(B * heads, H * W, H * W).softmax(-1)
    v = torch.randn(B * heads, H * W, hd)
    x = (attn @ v).view(B, heads, H, W, -1).permute(0, 2, 3, 1, 4)
    return x.view(B, H, W, -1) if mutant else x.reshape(B, H, W, -1)


def sam_recombine_heads(mutant, b, heads, tokens, c):
    # segment_anything/modeling/transformer.py Attention._recombine_heads: x = attn @ v
    x = (torch.randn(b, heads, tokens, tokens).softmax(-1) @ torch.randn(b, heads, tokens, c))
    x = x.transpose(1, 2)
    shape = (b, tokens, heads * c)
    return x.view(shape) if mutant else x.reshape(shape)


def sam_apply_boxes(mutant, n, old, new):
    # segment_anything/utils/transforms.py ResizeLongestSide.apply_boxes_torch
    boxes = torch.rand(n, 4) * old
    coords = boxes.reshape(-1, 2, 2).clone().to(torch.float)
    coords[..., 0] = coords[..., 0] * (new / old)
    coords[..., 1] = coords[..., 1] * (new / old)
    return coords.view(-1, 4) if mutant else coords.reshape(-1, 4)


def _decay(H, T):
    # rwkv/model.py: time_decay loaded as torch.exp(-torch.exp(w.float())).reshape(-1, 1, 1)
    return torch.exp(-torch.exp(torch.randn(H).float())).reshape(-1, 1, 1)


def rwkv_v5_w(mutant, which, H, T):
    # rwkv/model.py RWKV.att_seq_v5 / att_seq_v5_1: the decay matrices
    t_decay, t_first = _decay(H, T), torch.exp(torch.randn(H).float()).reshape(-1, 1, 1)
    r = (lambda t, *s: t.view(*s)) if mutant else (lambda t, *s: t.reshape(*s))
    w = r(t_decay, -1, 1) if which == "w" else t_decay.reshape(-1, 1)
    u = r(t_first, -1, 1) if which == "u" else t_first.reshape(-1, 1)
    ind = torch.arange(T - 1, -1, -1).unsqueeze(0).repeat(H, 1)
    w = w.repeat(1, T).pow(ind)
    wk = r(w, H, 1, T) if which == "wk" else w.reshape(H, 1, T)
    w = torch.cat([w[:, 1:], u], dim=1)
    w = torch.tile(F.pad(w, (0, T)), [T])
    w = w[:, :-T].reshape(-1, T, 2 * T - 1)
    w = r(w[:, :, T - 1:], H, T, T) if which == "w_tt" else w[:, :, T - 1:].reshape(H, T, T)
    return w, wk


def rwkv_v5_1_out(mutant, T, H, N):
    # rwkv/model.py att_seq_v5_1: out = ((r @ k) * w) @ v + ..., (H, T, N), made contiguous
    out = (torch.randn(H, T, T) @ torch.randn(H, T, N)).transpose(0, 1).contiguous()
    return out.view(T, H * N) if mutant else out.reshape(T, H * N)


def rwkv_v5_2_after(mutant, T, H, N):
    # rwkv/model.py v5_2_after: out is RUN_RWKV_5's y = torch.empty((B, T, C)), B = 1
    out = torch.randn(1, T, H * N)
    return out.view(T, H * N) if mutant else out.reshape(T, H * N)


SAM_REL = [dict(L=127, C=64, q_size=64), dict(L=27, C=64, q_size=32)]
CASES = {
    "sam_window_partition": (sam_window_partition, [dict(B=1, H=64, W=64, C=8, ws=14),
                                                    dict(B=2, H=14, W=14, C=8, ws=14)]),
    "sam_window_unpartition": (sam_window_unpartition, [dict(B=1, Hp=70, Wp=70, C=8, ws=14)]),
    "sam_rel_pos_param": (lambda mutant, **kw: sam_rel_pos(mutant, "param", **kw), SAM_REL),
    "sam_rel_pos_resized": (lambda mutant, **kw: sam_rel_pos(mutant, "resized", **kw), SAM_REL),
    "sam_mask_to_box": (sam_mask_to_box, [dict(shape=(3, 16, 20)), dict(shape=(2, 3, 8, 8))]),
    "sam_attention_out": (sam_attention_out, [dict(B=1, H=14, W=14, heads=12, hd=8),
                                              dict(B=1, H=4, W=4, heads=1, hd=8)]),
    "sam_recombine_heads": (sam_recombine_heads, [dict(b=1, heads=8, tokens=7, c=32)]),
    "sam_apply_boxes": (sam_apply_boxes, [dict(n=3, old=1500, new=1024)]),
    "rwkv_v5_w_tt": (lambda mutant, **kw: rwkv_v5_w(mutant, "w_tt", **kw),
                     [dict(H=4, T=5), dict(H=32, T=1)]),
    "rwkv_v5_wk": (lambda mutant, **kw: rwkv_v5_w(mutant, "wk", **kw),
                   [dict(H=4, T=5), dict(H=32, T=1)]),
    "rwkv_v5_w": (lambda mutant, **kw: rwkv_v5_w(mutant, "w", **kw),
                  [dict(H=4, T=5), dict(H=32, T=1)]),
    "rwkv_v5_u": (lambda mutant, **kw: rwkv_v5_w(mutant, "u", **kw),
                  [dict(H=4, T=5), dict(H=32, T=1)]),
    "rwkv_v5_1_out": (rwkv_v5_1_out, [dict(T=5, H=4, N=8)]),
    "rwkv_v5_2_after": (rwkv_v5_2_after, [dict(T=5, H=4, N=8), dict(T=1, H=32, N=64)]),
}

if __name__ == "__main__":
    run_all(CASES)
