"""Held-out findings of the default rules (CTG106, CTG108, CTG111, CTG114) and of the preview
rules CTG101-CTG103, each run under torch: imported from the pinned package where it imports
(torchmetrics, kornia, torchao, lightly), else a cited excerpt with realistic inputs.

Run: python benchmarks/heldout_repro/default_and_ctg101_103.py   (needs the held-out corpus)
"""
import io

import torch
import torch.nn as nn
import torch.nn.functional as F

from common import outcome, use_packages

use_packages("torchmetrics", "kornia", "torchao", "lightly")


# --- CTG108 -------------------------------------------------------------------------------------
def torchmetrics_mean_nan_fill():
    # torchmetrics/aggregation.py:105 via MeanMetric.update: weight = broadcast_to(weight, shape)
    from torchmetrics.aggregation import MeanMetric

    m = MeanMetric(nan_strategy=0.0)
    m.update(torch.tensor([1.0, float("nan"), 3.0]), weight=2.0)
    # nan -> 0 with weight 1, the others weight 2: (2*1 + 1*0 + 2*3) / (2 + 1 + 2) = 1.6
    return f"got {m.compute().item():.4f}, correct 1.6000"


# --- CTG111 -------------------------------------------------------------------------------------
def peft_supertuning_merge():
    # peft/tuners/supertuning/layer.py:236/257: weight = base_layer.weight, an nn.Linear weight
    weight = nn.Linear(8, 4).weight
    before = weight.data.clone()
    indices, values = torch.tensor([0, 5, 9]), torch.ones(3)
    weight.data.reshape(-1).scatter_add_(0, indices, values)
    changed = int((weight.data != before).sum())
    return f"contiguous={weight.is_contiguous()}, {changed} of 3 entries updated in place"


# --- CTG114 -------------------------------------------------------------------------------------
def torchao_fp8_test_expects_the_assert():
    # torchao/prototype/float8nocompile/kernels/fp8_dynamic_tensorwise_test.py:79 etc.: the call
    # sits inside `with pytest.raises(AssertionError, match="tensor must be contiguous")`
    y = torch.ones(2, 3, dtype=torch.bfloat16)
    try:
        assert y.t().is_contiguous(), "input tensor must be contiguous"
    except AssertionError as error:
        return f"the AssertionError the test asks for: {error}"
    return "no assertion"


def torchao_mxfp8_emulated_weight():
    # torchao/prototype/moe_training/mxfp8_grouped_mm.py:581 _compute_fwd_emulated: weight_t is
    # "expert weights transposed, (E, K, N)": the callers pass w.transpose(-2, -1) of (E, N, K)
    from torchao.prototype.moe_training.mxfp8_grouped_mm import _extract_or_quantize_1x32_emulated
    from torchao.prototype.mx_formats.config import ScaleCalculationMode

    w = torch.randn(2, 64, 32, dtype=torch.bfloat16)  # (E, N, K)
    weight_t = w.transpose(-2, -1)
    q, s = _extract_or_quantize_1x32_emulated(weight_t.transpose(-2, -1), 32,
                                              ScaleCalculationMode.FLOOR)
    return f"as called: quantized {tuple(q.shape)}"


def torchao_mx_unpack_after_assert():
    # torchao/prototype/mx_formats/mx_tensor.py:443-458: data_lp = data_lp.t() is followed by
    # `assert data_lp.is_contiguous()`; unpack_uint4 only runs on tensors that passed it
    data_lp = torch.randint(0, 255, (16, 8), dtype=torch.uint8).t()  # transposed storage
    data_lp = data_lp.t()
    return f"contiguous after the .t(): {data_lp.is_contiguous()}"


# --- CTG106 -------------------------------------------------------------------------------------
def torchao_col_major_t_buffer():
    # torchao/prototype/float8nocompile/kernels/fp8_dynamic_tensorwise.py:751-758: the output is
    # empty_like(hp.t()) and the strideless kernel writes it in hp's memory order, on purpose
    hp = torch.randn(4, 6)
    out = torch.empty_like(hp.t())
    out.t().view(-1).copy_(hp.reshape(-1))  # what a linear out_ptr[i] = f(in_ptr[i]) kernel does
    return f"out equals hp.t(): {torch.equal(out, hp.t())}, out col-major: {out.stride()}"


# --- CTG101 -------------------------------------------------------------------------------------
def diffusers_sd3_ip_adapter(seq):
    # diffusers/models/attention_processor.py:5026-5027 SD3IPAdapterJointAttnProcessor2_0
    batch, heads, head_dim = 2, 8, 64
    q = torch.randn(batch, heads, seq, head_dim)
    k = torch.randn(batch, heads, seq + 16, head_dim)
    ip = F.scaled_dot_product_attention(q, k, k, dropout_p=0.0, is_causal=False)
    return tuple(ip.transpose(1, 2).view(batch, -1, heads * head_dim).shape)


def kornia_diamond_square(size):
    from kornia.contrib.diamond_square import diamond_square

    return tuple(diamond_square(size, roughness=0.5).shape)


def kornia_scale_space_response(flag):
    # kornia/feature/scale_space_detector.py:412-420: sigmas_oct is cut only when the flag is off,
    # and viewed only when it is on
    import kornia.feature as KF
    from kornia.geometry.subpix import ConvQuadInterp3d

    if flag:
        resp = KF.BlobDoG()
    else:
        resp = KF.BlobHessian()
    det = KF.ScaleSpaceDetector(num_features=20, resp_module=resp, scale_space_response=flag,
                                subpix_module=ConvQuadInterp3d(10), minima_are_also_good=True)
    lafs, responses = det(torch.rand(2, 1, 64, 64))
    return tuple(lafs.shape)


def lightly_interpolate_pos_encoding():
    # lightly/models/modules/ijepa.py:283 (masked_autoencoder.py:159 and
    # masked_vision_transformer_torchvision.py:98 are the same code)
    N, npatch, dim = 196, 256, 64
    pos = torch.randn(1, N + 1, dim)[:, 1:]
    pos = F.interpolate(pos.reshape(1, 14, 14, dim).permute(0, 3, 1, 2),
                        scale_factor=(npatch / N) ** 0.5, mode="bicubic")
    return tuple(pos.permute(0, 2, 3, 1).view(1, -1, dim).shape)


def lightly_interpolate_pos_encoding_nchw_input():
    # the same view when interpolate is handed an NCHW-contiguous tensor: h and w stay adjacent
    pos = F.interpolate(torch.randn(1, 64, 14, 14), scale_factor=16 / 14, mode="bicubic")
    return tuple(pos.permute(0, 2, 3, 1).view(1, -1, 64).shape)


def torchao_same_size_dtype_views():
    # torchao moe_training/utils.py:280-282, mx_tensor.py:415, nvfp4_tensor.py:565,
    # test_kernels.py:1269: 1-byte scales/data (e8m0, fp8, uint8) viewed as another 1-byte dtype
    scales = torch.randint(0, 255, (8, 4), dtype=torch.uint8).view(torch.float8_e8m0fnu).t()
    y = torch.randn(8, 32).to(torch.float8_e4m3fn).t()
    b_scale = torch.randint(0, 255, (16, 4), dtype=torch.uint8).t()
    shapes = [tuple(scales.view(torch.uint8).shape), tuple(y.view(torch.uint8).shape),
              tuple(b_scale.view(torch.float8_e4m3fn).shape)]
    return f"{shapes}"


def ultralytics_imx_pose26(kpt_shape=(17, 3)):
    # ultralytics/utils/export/imx.py:131-139 pose_forward, Pose26 export (nk_output != nk)
    bs, spatial = 1, 8400
    nk = kpt_shape[0] * kpt_shape[1]
    kpt = torch.randn(bs, kpt_shape[0] * (kpt_shape[1] + 2), spatial)
    kpt = kpt.view(bs, kpt_shape[0], kpt_shape[1] + 2, spatial)
    kpt = kpt[:, :, :-2, :]
    return tuple(kpt.view(bs, nk, spatial).shape)


def ultralytics_tal_targets():
    # ultralytics/utils/loss.py:446 targets.split((1, 4), 2) -> tal.py:311 gt_bboxes.view(-1, 4)
    targets = torch.randn(16, 12, 5)
    gt_labels, gt_bboxes = targets.split((1, 4), 2)
    return f"contiguous={gt_bboxes.is_contiguous()}, view -> {tuple(gt_bboxes.view(-1, 4).shape)}"


# --- CTG102 -------------------------------------------------------------------------------------
def kornia_aliked_kept_views():
    # kornia/feature/aliked/aliked.py:348-357: grid_sample(...)[0, 0, 0, :] indexes size-1 dims;
    # :711-718: offset[:, :, :-1] of a (N, n_pos, 3) permuted conv output
    scores = torch.rand(1, 1, 60, 80)
    grid = torch.rand(1, 1, 500, 2) * 2 - 1
    kptscore = F.grid_sample(scores, grid, mode="bilinear", align_corners=True)[0, 0, 0, :]
    n_kpts, n_pos = 500, 16
    offset = torch.randn(n_kpts, 3 * n_pos, 1, 1)[:, :, 0, 0].view(n_kpts, 3, n_pos)
    offset = offset.permute(0, 2, 1)[:, :, :-1]
    return (f"kptscore contiguous={kptscore.is_contiguous()}, "
            f"storage {kptscore.untyped_storage().nbytes()}B for {kptscore.numel() * 4}B; "
            f"offset keeps {offset.numel()}/{offset.untyped_storage().nbytes() // 4} elements")


# --- CTG103 -------------------------------------------------------------------------------------
def kornia_mkd_index_buffer():
    # kornia/feature/mkd.py:355 register_buffer("idx1", kron[:, 0])
    from kornia.feature.mkd import EmbedGradients, ExplicitSpacialEncoding

    enc = ExplicitSpacialEncoding(kernel_type="polar", fmap_size=32, in_dims=7)
    buf = io.BytesIO()
    torch.save(enc.state_dict(), buf)
    buf.seek(0)
    enc.load_state_dict(torch.load(buf))
    del EmbedGradients
    return f"idx1 contiguous={enc.idx1.is_contiguous()}, state_dict round trip ok"


def kornia_mkd_whitening_evecs():
    # kornia/feature/mkd.py:471 evecs = nn.Parameter(torch.eye(in_dims)[:, :output_dims])
    from kornia.feature.mkd import Whitening

    w = Whitening("pcawt", None, in_dims=238, output_dims=128)
    out = w(torch.randn(4, 238))
    print(f"    (forward ok {tuple(out.shape)}; evecs contiguous={w.evecs.is_contiguous()})")
    return tuple(torch.nn.utils.parameters_to_vector(w.parameters()).shape)


def torchao_lstm_sliced_bias():
    # torchao/test/prototype/test_structured_sparsifier.py:119-120: LSTM biases set to a column
    lstm = nn.LSTM(2, 2, 1)
    manual = torch.tensor([[1., 1], [2, 2], [2, 2], [1, 1], [-1, -1], [-2, -2], [-2, -2], [-1, -1]])
    with torch.no_grad():
        lstm.bias_ih_l0 = nn.Parameter(manual[:, 0])
        lstm.bias_hh_l0 = nn.Parameter(manual[:, 0])
    out, _ = lstm(torch.ones(1, 2))
    return f"forward ok {tuple(out.shape)}"


def torchao_pat_low_rank_u(m=1024, n=1024, k=64):
    # torchao/prototype/pat/utils.py:187-209: U, p, Vh = svd(W, full_matrices=False)
    # (low_rank.py:47); U[:, :k] becomes the module's parameter after pruning to k singular values
    U, S, Vh = torch.linalg.svd(torch.randn(m, n), full_matrices=False)
    mod = nn.Module()
    mod.register_parameter("w_U", nn.Parameter(U[:, :k], requires_grad=False))
    buf = io.BytesIO()
    torch.save(mod.state_dict(), buf)
    need = m * k * 4
    return (f"U[:, :{k}] holds {mod.w_U.untyped_storage().nbytes() // 2**10} KiB for "
            f"{need // 2**10} KiB of values; torch.save wrote {buf.tell() // 2**10} KiB")


def torchao_moe_params_replaced():
    # torchao/testing/utils.py:642-651: the transposed Parameters are replaced at once by
    # load_state_dict(new_state_dict, assign=True)
    mod = nn.Module()
    mod.w1 = nn.Parameter(torch.randn(2, 4, 8), requires_grad=False)
    mod.w1 = nn.Parameter(mod.w1.transpose(1, 2), requires_grad=False)
    mod.load_state_dict({"w1": torch.randn(2, 8, 4)}, assign=True)
    return f"after assign: contiguous={mod.w1.is_contiguous()}"


def peft_transpose_helper():
    # peft/utils/other.py:1316 transpose(): the Parameter(weight.T) is a temporary for F.linear
    w = nn.Parameter(torch.randn(16, 8))
    return tuple(F.linear(torch.randn(2, 16), torch.nn.Parameter(w.T)).shape)


if __name__ == "__main__":
    outcome("CTG108 torchmetrics aggregation.py:105 MeanMetric(nan_strategy=0.0), weight=2.0",
            torchmetrics_mean_nan_fill)
    outcome("CTG111 peft supertuning/layer.py:236,257 nn.Linear base weight",
            peft_supertuning_merge)
    outcome("CTG114 torchao fp8_dynamic_tensorwise_test.py:79..490",
            torchao_fp8_test_expects_the_assert)
    outcome("CTG114 torchao mxfp8_grouped_mm.py:581 as called", torchao_mxfp8_emulated_weight)
    outcome("CTG114 torchao mx_tensor.py:458", torchao_mx_unpack_after_assert)
    outcome("CTG106 torchao fp8_dynamic_tensorwise.py:758", torchao_col_major_t_buffer)
    outcome("CTG101 diffusers attention_processor.py:5027 seq=1",
            lambda: diffusers_sd3_ip_adapter(1))
    outcome("CTG101 diffusers attention_processor.py:5027 seq=64 (CPU SDPA)",
            lambda: diffusers_sd3_ip_adapter(64))
    for size in ((1, 1, 5, 7), (2, 3, 20, 33)):
        outcome(f"CTG101 kornia diamond_square.py:255 {size}", lambda: kornia_diamond_square(size))
    outcome("CTG101 kornia scale_space_detector.py:420 scale_space_response=True",
            lambda: kornia_scale_space_response(True))
    outcome("CTG101 kornia scale_space_detector.py:420 scale_space_response=False",
            lambda: kornia_scale_space_response(False))
    outcome("CTG101 lightly ijepa.py:283 (+2 files)", lightly_interpolate_pos_encoding)
    outcome("CTG101 lightly, NCHW interpolate input", lightly_interpolate_pos_encoding_nchw_input)
    outcome("CTG101 torchao 1-byte dtype views (5 lines)", torchao_same_size_dtype_views)
    outcome("CTG101 ultralytics imx.py:139 Pose26 kpt_shape=(17, 3)", ultralytics_imx_pose26)
    outcome("CTG101 ultralytics tal.py:311", ultralytics_tal_targets)
    outcome("CTG102 kornia aliked.py:357,383,718", kornia_aliked_kept_views)
    outcome("CTG103 kornia mkd.py:355 idx1", kornia_mkd_index_buffer)
    outcome("CTG103 kornia mkd.py:471 parameters_to_vector(Whitening)", kornia_mkd_whitening_evecs)
    outcome("CTG103 torchao test_structured_sparsifier.py:119-120", torchao_lstm_sliced_bias)
    outcome("CTG103 torchao pat/utils.py:209 U[:, :k] of a 1024x1024 SVD", torchao_pat_low_rank_u)
    outcome("CTG103 torchao testing/utils.py:643-649", torchao_moe_params_replaced)
    outcome("CTG103 peft other.py:1316", peft_transpose_helper)
