"""Re-creation of vllm-project/vllm#16658 ("V0 engines gives incorrect output for
Moonlight model"), fixed by PR #17091 ("Add contiguous call inside rope kernel
wrapper").

MLA applies RoPE to a slice ``q[..., qk_nope_head_dim:]``.  The CUDA kernel
addresses token t at ``t * query.stride(0)`` and head h at ``h * head_size``,
i.e. it assumes a dense [tokens, heads, head_size] block -> wrong rotation.
"""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import torch

from _support.raw import _flat_storage


def _rotate_inplace(x, positions, head_size, cos_sin_cache):
    """csrc/pos_encoding_kernels.cu, neox style: raw pointer + token stride only."""
    num_tokens = positions.numel()
    stride = x.stride(0)                                  # query.stride(seq_dim_idx)
    num_heads = x.numel() // num_tokens // head_size
    flat, off = _flat_storage(x), x.storage_offset()
    t = torch.arange(num_tokens)[:, None, None]
    h = torch.arange(num_heads)[None, :, None]
    i = torch.arange(head_size)[None, None, :]
    idx = off + t * stride + h * head_size + i                 # ptr[token*stride + head*head_size + i]
    v = flat[idx]
    cos, sin = cos_sin_cache[positions].chunk(2, -1)
    x1, x2 = v.chunk(2, -1)
    rot = torch.cat([x1 * cos[:, None] - x2 * sin[:, None], x2 * cos[:, None] + x1 * sin[:, None]], -1)
    flat[idx] = rot


def rotary_embedding(positions, query, key, head_size, cos_sin_cache, is_neox):  # torch.ops._C
    _rotate_inplace(query, positions, head_size, cos_sin_cache)
    _rotate_inplace(key, positions, head_size, cos_sin_cache)


class RotaryEmbedding(torch.nn.Module):
    def __init__(self, head_size, max_pos=64, base=10000.0):
        super().__init__()
        self.head_size = head_size
        inv = 1.0 / base ** (torch.arange(0, head_size, 2).float() / head_size)
        freqs = torch.outer(torch.arange(max_pos).float(), inv)
        self.cos_sin_cache = torch.cat([freqs.cos(), freqs.sin()], -1)

    def forward_cuda(self, positions, query, key):
        rotary_embedding(positions, query, key, self.head_size, self.cos_sin_cache, True)  # bug-line
        return query, key

    def forward_native(self, positions, x):
        cos, sin = self.cos_sin_cache[positions].chunk(2, -1)
        x1, x2 = x.chunk(2, -1)
        return torch.cat([x1 * cos[:, None] - x2 * sin[:, None], x2 * cos[:, None] + x1 * sin[:, None]], -1)


def mla_prefill(q, kv_a, positions, rope, qk_nope_head_dim, kv_lora_rank):
    k_pe = kv_a[..., kv_lora_rank:].unsqueeze(1)
    q[..., qk_nope_head_dim:], k_pe = rope.forward_cuda(positions, q[..., qk_nope_head_dim:], k_pe)
    return q, k_pe


def main():
    torch.manual_seed(0)
    T, H, nope, rope_dim, lora = 5, 4, 32, 16, 24
    q = torch.randn(T, H, nope + rope_dim)
    kv_a = torch.randn(T, lora + rope_dim)
    positions = torch.arange(T)
    rope = RotaryEmbedding(rope_dim)
    ref_q = torch.cat([q[..., :nope], rope.forward_native(positions, q[..., nope:])], -1)
    ref_k = rope.forward_native(positions, kv_a[..., lora:].unsqueeze(1))
    out_q, out_k = mla_prefill(q.clone(), kv_a.clone(), positions, rope, nope, lora)
    if not (torch.allclose(out_q, ref_q, atol=1e-5) and torch.allclose(out_k, ref_k, atol=1e-5)):
        raise AssertionError("wrong values")
    print("ok", tuple(out_q.shape))


if __name__ == "__main__":
    main()
