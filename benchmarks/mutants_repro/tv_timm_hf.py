"""Mutants drawn from torchvision, timm and transformers (tuning corpus).
Run: python benchmarks/mutants_repro/tv_timm_hf.py [CASE ...]
"""
import torch
import torch.nn.functional as F

from common import run_all


def tv_flip_byte_order(mutant, n, dtype):
    # torchvision/datasets/utils.py _flip_byte_order; its caller (datasets/mnist.py
    # read_sn3_pascalvincent_tensor) passes torch.frombuffer(...) of the file's payload
    t = torch.frombuffer(bytearray(torch.arange(n, dtype=dtype).numpy().tobytes()), dtype=dtype)
    t = t if mutant else t.contiguous()
    return t.view(torch.uint8).view(*t.shape, t.element_size()).flip(-1).view(
        *t.shape[:-1], -1).view(t.dtype)


def tv_affine_boxes(mutant, shape):
    # torchvision/transforms/v2/functional/_geometry.py _affine_bounding_boxes_with_expand:
    # XYWH boxes cloned to float, converted to XYXY in place (_xywh_to_xyxy adds in place)
    boxes = torch.rand(shape).float().clone()
    boxes[..., 2:] += boxes[..., :2]
    return boxes.view(-1, 4) if mutant else boxes.reshape(-1, 4)


def tv_swin3d_mask(mutant, size_dhw, window_size):
    # torchvision/models/video/swin_transformer.py _compute_attention_mask_3d (sizes: the
    # padded feature map and the window of swin3d_t: (8, 7, 7))
    attn_mask = torch.zeros(*size_dhw)
    num_windows = 1
    for s, w in zip(size_dhw, window_size):
        num_windows *= s // w
    attn_mask = attn_mask.view(size_dhw[0] // window_size[0], window_size[0],
                               size_dhw[1] // window_size[1], window_size[1],
                               size_dhw[2] // window_size[2], window_size[2])
    attn_mask = attn_mask.permute(0, 2, 4, 1, 3, 5)
    shape = (num_windows, window_size[0] * window_size[1] * window_size[2])
    return attn_mask.view(*shape) if mutant else attn_mask.reshape(*shape)


def timm_dct_kernel(mutant, kernel_size):
    # timm/models/csatv2.py _dct_kernel_type_2: v = fft(...)[:, :K] * k; v.real (strided)
    x = torch.eye(kernel_size)
    v = x.clone().contiguous().view(-1, kernel_size)
    v = torch.cat([v, v.flip([1])], dim=-1)
    v = torch.fft.fft(v, dim=-1)[:, :kernel_size]
    k = torch.tensor(-1j) * torch.pi * torch.arange(kernel_size)[None, :]
    v = (v * torch.exp(k / (kernel_size * 2))).real
    v[:, 0] = v[:, 0] * (1 / (kernel_size * 4)) ** 0.5
    return (v if mutant else v.contiguous()).view(*x.shape)


def timm_window_reverse(mutant, B, H, W, ws, C):
    # timm/models/swin_transformer_v2_cr.py window_reverse
    windows = torch.randn(B * (H // ws) * (W // ws), ws, ws, C)
    x = windows.view(-1, H // ws, W // ws, ws, ws, C).permute(0, 1, 3, 2, 4, 5)
    return (x if mutant else x.contiguous()).view(-1, H, W, C)


def timm_adamp_layer_view(mutant, shape):
    # timm/optim/adamp.py _layer_view, called by _projection on p.grad and p.data of params
    p = torch.nn.Parameter(torch.randn(shape))
    p.sum().backward()
    return [x.view(1, -1) if mutant else x.reshape(1, -1) for x in (p.grad, p.data)]


def timm_gcvit_q_global(mutant, B_img, hw, ws, C, heads):
    # timm/models/gcvit.py WindowAttentionGlobal.forward: q_global is the stage's
    # global_norm(global_query.permute(0, 2, 3, 1)), repeated per window
    global_query = torch.randn(B_img, C, ws, ws).permute(0, 2, 3, 1)
    q_global = F.layer_norm(global_query, (C,))
    B, N = B_img * (hw // ws) ** 2, ws * ws
    q = q_global.repeat_interleave(B // q_global.shape[0], dim=0)
    shape = (B, N, heads, C // heads)
    return (q.view(*shape) if mutant else q.reshape(*shape)).permute(0, 2, 1, 3)


def hf_pix2struct_loss(mutant, B, T, V):
    # transformers/models/pix2struct/modeling_pix2struct.py: logits = lm_head(hidden_states),
    # labels as the user passes them (B, T)
    logits = torch.nn.Linear(16, V)(torch.randn(B, T, 16))
    labels = torch.randint(0, V, (B, T))
    if mutant:
        return F.cross_entropy(logits.view(-1, logits.size(-1)), labels.contiguous().view(-1))
    return F.cross_entropy(logits.contiguous().view(-1, logits.size(-1)),
                           labels.contiguous().view(-1))


def hf_bigbird_pegasus_context(mutant, bsz, heads, seq_len, head_dim):
    # transformers/models/bigbird_pegasus/modeling_bigbird_pegasus.py: the result of
    # bigbird_block_sparse_attention is context_layer.view((bsz, n_heads, from_seq_len, -1))
    # * from_mask, then torch.transpose(context_layer, 1, 2)
    context_layer = torch.randn(bsz, heads, seq_len // 64, 64, head_dim)
    from_mask = torch.ones(bsz, 1, seq_len, 1)
    context_layer = context_layer.view((bsz, heads, seq_len, -1)) * from_mask
    context_layer = torch.transpose(context_layer, 1, 2)
    return (context_layer if mutant else context_layer.contiguous()).view(bsz, seq_len, -1)


def hf_sam3_no_mask_embed(mutant, batch_size, hidden):
    # transformers/models/sam3_tracker_video/modeling_sam3_tracker_video.py: an nn.Embedding(1, C)
    weight = torch.nn.Embedding(1, hidden).weight
    x = weight.view(1, -1, 1, 1) if mutant else weight.reshape(1, -1, 1, 1)
    return x.expand(batch_size, -1, 64, 64)


def hf_inkling_gammas(mutant, tokens, n_routed, n_shared):
    # transformers/models/inkling/modular_inkling.py: the router's shared_gammas is
    # topk_weights[..., -n_shared:].contiguous()
    topk_weights = torch.rand(tokens, n_routed + n_shared)
    gammas = topk_weights[..., -n_shared:].contiguous()
    shape = (-1, n_shared, 1)
    return (gammas.view(*shape) if mutant else gammas.reshape(*shape)).transpose(0, 1)


CASES = {
    "tv_flip_byte_order": (tv_flip_byte_order, [dict(n=10, dtype=torch.int32),
                                                dict(n=784, dtype=torch.int16)]),
    "tv_affine_boxes": (tv_affine_boxes, [dict(shape=(5, 4)), dict(shape=(2, 3, 4))]),
    "tv_swin3d_mask": (tv_swin3d_mask, [dict(size_dhw=(8, 56, 56), window_size=(8, 7, 7)),
                                        dict(size_dhw=(16, 28, 28), window_size=(8, 7, 7))]),
    "timm_dct_kernel": (timm_dct_kernel, [dict(kernel_size=8), dict(kernel_size=4)]),
    "timm_window_reverse": (timm_window_reverse, [dict(B=2, H=56, W=56, ws=7, C=96),
                                                  dict(B=1, H=14, W=14, ws=7, C=8)]),
    "timm_adamp_layer_view": (timm_adamp_layer_view, [dict(shape=(64, 3, 3, 3)),
                                                      dict(shape=(10, 20))]),
    "timm_gcvit_q_global": (timm_gcvit_q_global, [
        dict(B_img=2, hw=56, ws=7, C=64, heads=2), dict(B_img=1, hw=7, ws=7, C=64, heads=2)]),
    "hf_pix2struct_loss": (hf_pix2struct_loss, [dict(B=2, T=7, V=50), dict(B=1, T=1, V=50)]),
    "hf_bigbird_pegasus_context": (hf_bigbird_pegasus_context, [
        dict(bsz=2, heads=4, seq_len=1024, head_dim=16), dict(bsz=1, heads=1, seq_len=64,
                                                              head_dim=8)]),
    "hf_sam3_no_mask_embed": (hf_sam3_no_mask_embed, [dict(batch_size=1, hidden=256),
                                                      dict(batch_size=3, hidden=256)]),
    "hf_inkling_gammas": (hf_inkling_gammas, [dict(tokens=10, n_routed=8, n_shared=2),
                                              dict(tokens=1, n_routed=8, n_shared=1)]),
}

if __name__ == "__main__":
    run_all(CASES)
