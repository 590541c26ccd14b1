"""CTG113 findings on the real-code corpus: is the `.contiguous()` called redundant really so?

A reshape that must copy for most sizes views where a size is 1, and a view is as contiguous as
its input. Each case copies the lines that shape the tensor (cited by package/path), feeds it
realistic sizes, and prints whether the tensor `.contiguous()` is called on is contiguous:
where it is not, removing `.contiguous()` changes what the code hands on.
Run: python benchmarks/realcode_repro/ctg113_reshape_views.py
"""
import torch

from common import outcome


def glm_image_embeds(grid_t, grid_h, grid_w, dim=8):
    # transformers/models/glm_image/modeling_glm_image.py (and modular_glm_image.py):
    # "grid-h is always one for images", and grid_t is 1 for an image
    embed = torch.randn(grid_t * grid_h * grid_w, dim)
    embed = embed.view(grid_t, grid_h, grid_w, -1)
    embed = embed.permute(0, 3, 1, 2).reshape(-1, grid_h, grid_w)
    return f"contiguous={embed.is_contiguous()}"


def phi4_hd_image(height, width, tile=4):
    # transformers/models/phi4_multimodal/image_processing_phi4_multimodal.py: the HD image
    # cut into tiles; one row of tiles (height == tile) is a realistic input
    processed_image = torch.randn(1, 3, height, width)
    hd_image_reshape = processed_image.reshape(1, 3, height // tile, tile, width // tile, tile)
    hd_image_reshape = hd_image_reshape.permute(0, 2, 4, 1, 3, 5)
    hd_image_reshape = hd_image_reshape.reshape(-1, 3, tile, tile)
    return f"contiguous={hd_image_reshape.is_contiguous()}"


def phi4_attention_mask(mask_height, mask_width, mask_size=4):
    # the same function: the attention mask cut into the same tiles
    attention_mask = torch.ones(mask_height, mask_width)
    attention_mask_reshape = attention_mask.reshape(
        mask_height // mask_size, mask_size, mask_width // mask_size, mask_size)
    attention_mask_reshape = attention_mask_reshape.transpose(1, 2)
    attention_mask_reshape = attention_mask_reshape.reshape(-1, mask_size, mask_size)
    return f"contiguous={attention_mask_reshape.is_contiguous()}"


def megatron_mrope(bs, seq_length, dim=4):
    # megatron/core/models/common/embeddings/rotary_pos_embedding.py: a cat on the last dim,
    # then a transpose of the first two (was called contiguous: the cat's sizes were lost)
    emb = torch.randn(3, bs, seq_length, dim)
    emb = torch.cat([m[i % 3] for i, m in enumerate(emb.split([2, 2], dim=-1))], dim=-1)
    return f"contiguous={emb[..., None, :].transpose(0, 1).is_contiguous()}"


def univnet_kernels(batch, seq_length, hidden=4, layers=2, in_ch=3, out_ch=6, kernel=3):
    # transformers/models/univnet/modeling_univnet.py, UnivNetKernelPredictor.forward: a
    # Conv1d's output viewed into kernels (and biases), then `.contiguous()`
    kernel_conv = torch.nn.Conv1d(hidden, in_ch * out_ch * kernel * layers, 3, padding=1)
    kernel_hidden_states = kernel_conv(torch.randn(batch, hidden, seq_length))
    kernels = kernel_hidden_states.view(batch, layers, in_ch, out_ch, kernel, seq_length)
    return f"contiguous={kernels.is_contiguous()}"


if __name__ == "__main__":
    outcome("glm_image embeds, an image (grid_t=1)", lambda: glm_image_embeds(1, 2, 3))
    outcome("glm_image embeds, a video (grid_t=2)", lambda: glm_image_embeds(2, 2, 3))
    outcome("phi4 HD image, one row of tiles", lambda: phi4_hd_image(4, 8))
    outcome("phi4 HD image, 2 x 2 tiles", lambda: phi4_hd_image(8, 8))
    outcome("phi4 attention mask, one row of tiles", lambda: phi4_attention_mask(4, 8))
    outcome("megatron mrope, bs=2, seq=5", lambda: megatron_mrope(2, 5))
    outcome("univnet kernels, batch=2, seq=7", lambda: univnet_kernels(2, 7))
    outcome("univnet kernels, batch=1, seq=1", lambda: univnet_kernels(1, 1))
