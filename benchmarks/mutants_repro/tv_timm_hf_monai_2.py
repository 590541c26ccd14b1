"""Mutants of the second draw from torchvision, timm, transformers, monai and torch-geometric
(tuning corpus). Run: python benchmarks/mutants_repro/tv_timm_hf_monai_2.py [CASE ...]
"""
import torch
import torch.nn.functional as F

from common import reshaped, run_all


def tv_scale_channel(mutant, C, H, W):
    # torchvision/transforms/_functional_tensor.py _scale_channel, called by equalize with
    # img[c] of the image; pil_to_tensor (transforms/functional.py) returns a
    # (H, W, C) buffer permuted to (C, H, W)
    img = torch.randint(0, 256, (H, W, C), dtype=torch.uint8).permute(2, 0, 1)
    return [torch.bincount(reshaped(mutant)(img[c], -1), minlength=256) for c in range(C)]


def tv_affine_matrix(mutant):
    # torchvision/transforms/v2/functional/_geometry.py: the 6-vector of
    # _get_inverse_affine_matrix, as a fresh tensor
    affine_vector = [0.9, -0.1, 3.0, 0.1, 0.9, -2.0]
    return reshaped(mutant)(torch.tensor(affine_vector, dtype=torch.float32), 2, 3).T


def tv_center_crop_empty(mutant, shape, layout):
    # torchvision/transforms/v2/functional/_geometry.py center_crop_image, an empty image (the
    # crop of an image with no pixels raises in the original: only empty batches get there)
    image = torch.empty(shape)
    if layout == "channels_last":
        image = image.contiguous(memory_format=torch.channels_last)
    return reshaped(mutant)(image, tuple(image.shape[:-2]) + (3, 3))


def tv_fcos_ctrness(mutant, N, H, W, anchors):
    # torchvision/models/detection/fcos.py FCOSRegressionHead: one anchor per location (FCOS)
    bbox_ctrness = torch.nn.Conv2d(8, anchors, 3, padding=1)(torch.randn(N, 8, H, W))
    x = bbox_ctrness.view(N, -1, 1, H, W).permute(0, 3, 4, 1, 2)
    return reshaped(mutant)(x, N, -1, 1)


def timm_window_partition(mutant, layout, B, C, H, W, ws):
    # timm/models/maxxvit.py window_partition_nchw and timm/models/hieradet_sam2.py
    # window_partition
    if layout == "nchw":
        x = torch.randn(B, C, H, W).view(B, C, H // ws, ws, W // ws, ws).permute(0, 2, 4, 1, 3, 5)
        return (x if mutant else x.contiguous()).view(-1, C, ws, ws)
    x = torch.randn(B, H, W, C).view(B, H // ws, ws, W // ws, ws, C).permute(0, 1, 3, 2, 4, 5)
    return (x if mutant else x.contiguous()).view(-1, ws, ws, C)


def timm_std_conv_weight(mutant, out_ch, in_ch, k):
    # timm/layers/std_conv.py ScaledStdConv2d.forward: the conv's weight parameter
    weight = torch.nn.Conv2d(in_ch, out_ch, k).weight
    return F.batch_norm(reshaped(mutant)(weight, 1, out_ch, -1), None, None, training=True,
                        momentum=0.0, eps=1e-6).reshape_as(weight)


def timm_attention_pool_latent(mutant, B, latent_len, heads, hd, N):
    # timm/layers/attention_pool.py AttentionPoolLatent.forward (fused attention); latent_len is
    # a constructor argument (default 1)
    q = torch.randn(B, heads, latent_len, hd)
    k, v = torch.randn(B, heads, N, hd), torch.randn(B, heads, N, hd)
    x = F.scaled_dot_product_attention(q, k, v).transpose(1, 2)
    return reshaped(mutant)(x, B, latent_len, heads * hd)


def hf_openai_shift_logits(mutant, B, T, V):
    # transformers/models/openai/modeling_openai.py OpenAIGPTDoubleHeadsModel.forward
    lm_logits = torch.nn.Linear(8, V)(torch.randn(B, T, 8))
    labels = torch.randint(0, V, (B, T))
    shift_logits = lm_logits[..., :-1, :]
    shift_logits = shift_logits if mutant else shift_logits.contiguous()
    shift_labels = labels[..., 1:].contiguous()
    return F.cross_entropy(shift_logits.view(-1, shift_logits.size(-1)), shift_labels.view(-1))


def hf_swin_window_partition(mutant, B, H, W, C, ws):
    # transformers/models/swin/modular_swin.py window_partition
    x = torch.randn(B, H, W, C).view(B, H // ws, ws, W // ws, ws, C).transpose(2, 3)
    return (x if mutant else x.contiguous()).view(-1, ws, ws, C)


def hf_led_value_states(mutant, bsz, heads, L, hd):
    # transformers/models/led/modeling_led.py LEDDecoderAttention.forward, no cache
    value_states = torch.nn.Linear(heads * hd, heads * hd)(torch.randn(bsz, L, heads * hd))
    value_states = value_states.view(bsz, -1, heads, hd).transpose(1, 2)
    return reshaped(mutant)(value_states, bsz * heads, -1, hd)


def hf_xclip_attn_output(mutant, B, heads, Lq, Lk, hd):
    # transformers/models/x_clip/modular_x_clip.py: attention_interface's output; eager and
    # sdpa both end with attn_output.transpose(1, 2).contiguous()
    q, k, v = torch.randn(B, heads, Lq, hd), torch.randn(B, heads, Lk, hd), torch.randn(
        B, heads, Lk, hd)
    attn_output = F.scaled_dot_product_attention(q, k, v).transpose(1, 2).contiguous()
    return reshaped(mutant)(attn_output, B, Lq, -1).contiguous()


def monai_channel_to_batch(mutant, b, c, h, w, d):
    # monai/apps/reconstruction/networks/nets/utils.py reshape_channel_to_batch_dim; its caller
    # (coil_sensitivity_model.py) passes ifftn_centered_t(x, is_complex=True): view_as_real of
    # torch.fft.ifftn, shifted with torch.roll
    x = torch.view_as_complex(torch.randn(b, c, h, w, d, 2))
    x = torch.fft.ifftn(x, dim=(-3, -2, -1), norm="ortho")
    x = torch.roll(torch.view_as_real(x), shifts=(h // 2, w // 2, d // 2), dims=(2, 3, 4))
    return (x if mutant else x.contiguous()).view(b * c, 1, h, w, d, 2)


def monai_rel_pos_att(mutant, batch, heads, n, hd):
    # monai/networks/blocks/selfattention.py SABlock: q, k = Rearrange("b h (qkv l d) -> qkv b
    # l h d")(qkv(x)), att_mat = einsum("blxd,blyd->blxy", q, k) * scale
    qkv = torch.nn.Linear(8, 3 * heads * hd)(torch.randn(batch, n, 8))
    q, k, _ = qkv.view(batch, n, 3, heads, hd).permute(2, 0, 3, 1, 4)
    att_mat = torch.einsum("blxd,blyd->blxy", q, k) * hd ** -0.5
    return (att_mat if mutant else att_mat.contiguous()).view(batch * heads, n, n)


def monai_surface_areas(mutant, shape):
    # monai/metrics/utils.py get_mask_edges (torch path): code_pred from a conv3d
    seg = (torch.rand(2, 1, *shape) > 0.5).float()
    code_pred = F.conv3d(seg, torch.rand(1, 1, 2, 2, 2))[0]
    table = torch.rand(256)
    areas = torch.index_select(table, 0, code_pred.view(-1).int().clamp(0, 255))
    return reshaped(mutant)(areas, code_pred.shape)


def pyg_rgcn_block(mutant, nodes, in_ch, out_ch, blocks):
    # torch_geometric/nn/conv/rgcn_conv.py RGCNConv.forward, block-diagonal decomposition
    weight = torch.randn(3, blocks, in_ch // blocks, out_ch // blocks)
    h = torch.randn(nodes, in_ch).view(-1, weight.size(1), weight.size(2))
    h = torch.einsum("abc,bcd->abd", h, weight[1])
    return (h if mutant else h.contiguous()).view(-1, out_ch)


def pyg_hgt_keys(mutant, sizes, H, D):
    # torch_geometric/nn/conv/hgt_conv.py HGTConv._construct_src_node_feat: k_dict values are
    # (N, H, D) views of a linear layer's output
    ks = [torch.nn.Linear(8, H * D)(torch.randn(n, 8)).view(n, H, D) for n in sizes]
    return reshaped(mutant)(torch.cat(ks, dim=0).transpose(0, 1), -1, D)


CASES = {
    "tv_scale_channel": (tv_scale_channel, [dict(C=3, H=4, W=5), dict(C=1, H=4, W=5)]),
    "tv_affine_matrix": (tv_affine_matrix, [{}]),
    "tv_center_crop_empty": (tv_center_crop_empty, [
        dict(shape=(0, 3, 4, 5), layout="contiguous"),
        dict(shape=(2, 0, 4, 5), layout="contiguous"),
        dict(shape=(0, 3, 4, 5), layout="channels_last")]),
    "tv_fcos_ctrness": (tv_fcos_ctrness, [dict(N=2, H=8, W=10, anchors=1)]),
    "timm_maxxvit_window_partition_nchw": (
        lambda mutant, **kw: timm_window_partition(mutant, "nchw", **kw),
        [dict(B=2, C=8, H=14, W=14, ws=7)]),
    "timm_hiera_window_partition": (
        lambda mutant, **kw: timm_window_partition(mutant, "nhwc", **kw),
        [dict(B=2, C=8, H=14, W=14, ws=7)]),
    "timm_std_conv_weight": (timm_std_conv_weight, [dict(out_ch=8, in_ch=3, k=3)]),
    "timm_attention_pool_latent": (timm_attention_pool_latent, [
        dict(B=2, latent_len=1, heads=4, hd=8, N=10), dict(B=2, latent_len=4, heads=4, hd=8,
                                                           N=10)]),
    "hf_openai_shift_logits": (hf_openai_shift_logits, [dict(B=1, T=6, V=20),
                                                        dict(B=2, T=6, V=20)]),
    "hf_swin_window_partition": (hf_swin_window_partition, [dict(B=1, H=14, W=14, C=8, ws=7)]),
    "hf_led_value_states": (hf_led_value_states, [dict(bsz=2, heads=4, L=6, hd=8)]),
    "hf_xclip_attn_output": (hf_xclip_attn_output, [dict(B=2, heads=4, Lq=3, Lk=5, hd=8)]),
    "monai_channel_to_batch": (monai_channel_to_batch, [dict(b=2, c=3, h=4, w=6, d=2)]),
    "monai_rel_pos_att": (monai_rel_pos_att, [dict(batch=2, heads=4, n=6, hd=8),
                                              dict(batch=1, heads=1, n=6, hd=8)]),
    "monai_surface_areas": (monai_surface_areas, [dict(shape=(6, 6, 6))]),
    "pyg_rgcn_block": (pyg_rgcn_block, [dict(nodes=7, in_ch=8, out_ch=12, blocks=4),
                                        dict(nodes=3, in_ch=4, out_ch=4, blocks=2)]),
    "pyg_hgt_keys": (pyg_hgt_keys, [dict(sizes=[5, 3], H=2, D=8), dict(sizes=[1], H=1, D=8)]),
}

if __name__ == "__main__":
    run_all(CASES)
