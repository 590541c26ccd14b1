"""CTG102 (kept strided views) and CTG104 (device copies keep strides) findings on the real-code
corpus: what the kept view or the moved tensor meets next, run under torch.

Run: python benchmarks/realcode_repro/ctg102_104_kept_views.py
"""
import numpy as np
import torch
import torch.nn.functional as F

from common import outcome


def sliding_window_cache():
    # transformers/cache_utils.py DynamicSlidingWindowLayer.update (and the model copies): the
    # kept slice of the concatenation is replaced by a fresh torch.cat on the next update, and
    # attention takes it with any strides
    window, keys = 4, torch.randn(1, 2, 3, 8)
    full = torch.cat([keys, torch.randn(1, 2, 6, 8)], dim=-2)
    keys = full[:, :, -window + 1:, :]
    q = torch.randn(1, 2, 1, 8)
    out = F.scaled_dot_product_attention(q, keys, keys)
    keys = torch.cat([keys, torch.randn(1, 2, 1, 8)], dim=-2)
    return f"sdpa ok {tuple(out.shape)}, next update contiguous={keys.is_contiguous()}"


def cache_crop():
    # transformers/cache_utils.py DynamicLayer.crop: keys[..., :-n, :] keeps a prefix view; only
    # the n dropped tokens stay pinned until the next torch.cat
    keys = torch.randn(1, 2, 10, 8)[..., :-3, :]
    keys = torch.cat([keys, torch.randn(1, 2, 1, 8)], dim=-2)
    return f"after the next update contiguous={keys.is_contiguous()}"


def image_patches_stacked():
    # transformers image processors (sam crop_image, image_transforms patches, ovis2, inkling,
    # sapiens2): crops of an image kept in a list, later stacked/resized: the image is alive
    # anyway, and stack/interpolate take any strides
    image = torch.randn(3, 32, 32)
    crops = [image[:, 0:16, 0:16], image[:, 16:32, 16:32]]
    batch = torch.stack(crops)
    resized = F.interpolate(batch, size=(8, 8))
    return f"stack ok {tuple(batch.shape)}, interpolate ok {tuple(resized.shape)}"


def small_columns_in_arithmetic():
    # torchrl mujoco actuator_lo/hi = ar[:, 0] / ar[:, 1]; gpytorch tidcs[:, 1:]; logits_process
    # context[:, 1:]: small views used in clamp/indexing/cat
    ar = torch.tensor([[-1.0, 1.0], [-2.0, 2.0]])
    lo, hi = ar[:, 0], ar[:, 1]
    action = torch.tensor([5.0, -5.0])
    return f"clamp ok {torch.clamp(action, lo, hi).tolist()}"


def permuted_copy_to_numpy_pil():
    # torchvision/utils.py save_image/draw_keypoints, torchrl openvla: .permute(1, 2, 0).cpu()
    # .numpy() handed to PIL; Image.fromarray reads __array_interface__ and calls tobytes()
    # on a strided array (PIL is not installed here: tobytes() is what it gets)
    grid = torch.rand(3, 4, 5)
    ndarr = grid.mul(255).add_(0.5).clamp_(0, 255).permute(1, 2, 0).to("cpu", torch.uint8).numpy()
    interface = ndarr.__array_interface__
    data = ndarr.tobytes()
    same = data == np.ascontiguousarray(ndarr).tobytes()
    return f"strides {interface['strides']}, tobytes gives row-major pixels={same}"


def permuted_copy_into_ops():
    # glm4v pos-embed interpolate, longt5 cat, falcon_mamba/jamba elementwise, gemma4_vit matmul,
    # megatron .cpu() then indexing/tolist, sam .to(device) returned points: every consumer
    # honours strides
    x = torch.randn(6, 6, 4).permute(2, 0, 1).unsqueeze(0).to("cpu", torch.float32)
    interp = F.interpolate(x, size=(3, 3), mode="bicubic", align_corners=False)
    cat = torch.cat([torch.randn(2, 3), torch.randn(3, 2).t().to("cpu")], dim=-1)
    mm = torch.randn(2, 3, 4).permute(0, 2, 1).to(torch.float32) @ torch.randn(3, 5)
    tolist = torch.randn(2, 3, 4).permute(1, 0, 2).cpu()[0].tolist()
    return (f"interpolate {tuple(interp.shape)}, cat {tuple(cat.shape)}, matmul "
            f"{tuple(mm.shape)}, tolist of {len(tolist)} rows")


def rgb_to_id_on_moved_masks():
    # transformers detr-family image processors: masks.permute(1, 2, 0).to(int32) -> rgb_to_id
    masks = torch.randint(0, 255, (3, 4, 5)).permute(1, 2, 0).to(dtype=torch.int32)
    ids = masks[:, :, 0] + 256 * masks[:, :, 1] + 256 * 256 * masks[:, :, 2]
    return f"ids {tuple(ids.shape)}"


def permuted_copy_into_grid_sample_and_conv():
    # glm4v/glm4v_moe/glm_image pos-embed: permuted weight .to(float32) -> F.grid_sample;
    # qwen3_omni_moe talker codes .transpose(1, 2).to(device) -> slices and masked_fill before
    # the decoder; torchrec stride_per_key_per_rank .T.cpu() -> column indexing
    weight = torch.randn(16, 8)
    grid_in = weight.view(4, 4, 8).permute(2, 0, 1).unsqueeze(0).to("cpu", torch.float32)
    grid = torch.rand(1, 5, 1, 2) * 2 - 1
    same = torch.equal(F.grid_sample(grid_in, grid, align_corners=False),
                       F.grid_sample(grid_in.contiguous(), grid, align_corners=False))
    codes = torch.randint(0, 9, (2, 6, 4)).transpose(1, 2).to("cpu")
    masked = codes.masked_fill(torch.zeros(2, 1, 6, dtype=torch.bool), 0)[..., 1:3]
    columns = torch.arange(6).view(2, 3).T.cpu()[:, torch.tensor([0, 1])]
    return f"grid_sample equal to contiguous: {same}, codes {tuple(masked.shape)}, " \
        f"columns {tuple(columns.shape)}"


def reformer_first_hidden_state_pins_duplicate():
    # reformer _ReversibleFunction.forward: hidden_states, attn_output = chunk(cat([h, h]), 2)
    # and all_hidden_states.append(hidden_states) when output_hidden_states: the kept half
    # pins the doubled buffer for as long as the caller keeps the outputs
    h = torch.randn(2, 8, 16)
    half, _ = torch.chunk(torch.cat([h, h], dim=-1), 2, dim=-1)
    return (f"kept half holds {half.untyped_storage().nbytes()} bytes for "
            f"{half.numel() * half.element_size()} bytes of data")


def stored_class_columns():
    # monai visualize/class_activation_maps.py (self.score = logits[:, class_idx].squeeze())
    # and transformers generation/logits_process.py WhisperNoSpeechDetection
    # (self._no_speech_prob = probs[:, self.no_speech_token]): a column of the class scores is
    # kept on self until the next call replaces it; it pins one call's (batch, classes)
    # scores, and what reads it (backward, float(), comparisons) takes any strides
    logits = torch.randn(2, 10, requires_grad=True)
    score = logits[:, 3].squeeze()
    score.sum().backward()
    probs = torch.randn(2, 51865).softmax(-1)
    kept = probs[:, 50362]
    return (f"backward ok, kept column pins {kept.untyped_storage().nbytes()} bytes for "
            f"{kept.numel() * kept.element_size()}; read as {kept.tolist()[:1]}")


if __name__ == "__main__":
    outcome("CTG104 permuted copy -> grid_sample/masked_fill/indexing",
            permuted_copy_into_grid_sample_and_conv)
    outcome("CTG102 reformer first hidden state", reformer_first_hidden_state_pins_duplicate)
    outcome("CTG102 sliding-window cache slices", sliding_window_cache)
    outcome("CTG102 cache crop slices", cache_crop)
    outcome("CTG102 image crops appended", image_patches_stacked)
    outcome("CTG102 small columns stored", small_columns_in_arithmetic)
    outcome("CTG102 class-score columns stored on self", stored_class_columns)
    outcome("CTG104 permuted copy -> numpy -> PIL", permuted_copy_to_numpy_pil)
    outcome("CTG104 permuted copy -> interpolate/cat/matmul/tolist", permuted_copy_into_ops)
    outcome("CTG104 permuted copy -> rgb_to_id", rgb_to_id_on_moved_masks)
