"""Re-creation of vllm-project/vllm PR #21133 ("[Bugfix] Fix the tensor
non-contiguous issue for Flashinfer TRT-LLM backend attention kernel").

``query`` is a view of the fused QKV projection (``qkv.split`` -> ``.view``), so
``decode_query = query[num_prefill_tokens:]`` is non-contiguous.  The TRT-LLM
decode kernel indexes it as a dense [tokens, heads, head_dim] block; gsm8k
dropped (0.640 flexible-extract before the fix).
"""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import torch

from _support.raw import read_dense


# ---- flashinfer.decode.trtllm_batch_decode_with_kv_cache stand-in ----------------
def trtllm_batch_decode_with_kv_cache(query, kv_cache, seq_lens, scale):
    q = read_dense(query)                               # query.data_ptr(), dense
    outs = []
    for i, L in enumerate(seq_lens.tolist()):
        k, v = kv_cache[i, 0, :L], kv_cache[i, 1, :L]    # [L, H, D]
        p = torch.softmax(torch.einsum("hd,lhd->hl", q[i], k) * scale, -1)
        outs.append(torch.einsum("hl,lhd->hd", p, v))
    return torch.stack(outs)


class FlashInferImpl:
    def __init__(self, num_heads, head_size):
        self.num_heads, self.head_size = num_heads, head_size
        self.scale = head_size ** -0.5

    def forward(self, query, kv_cache, num_prefill_tokens, decode_seq_lens):
        query = query.view(-1, self.num_heads, self.head_size)
        decode_query = query[num_prefill_tokens:]
        decode_query = decode_query.contiguous()
        return trtllm_batch_decode_with_kv_cache(decode_query, kv_cache, decode_seq_lens,
                                                 self.scale)


def attention_layer(hidden, qkv_proj, impl, kv_cache, num_prefill, seq_lens):
    hq = impl.num_heads * impl.head_size
    q, k, v = qkv_proj(hidden).split([hq, hq, hq], dim=-1)
    return impl.forward(q, kv_cache, num_prefill, seq_lens)


def main():
    torch.manual_seed(0)
    H, D = 2, 8
    impl = FlashInferImpl(H, D)
    proj = torch.nn.Linear(16, 3 * H * D)
    hidden = torch.randn(5, 16)                        # 2 prefill + 3 decode tokens
    kv_cache = torch.randn(3, 2, 6, H, D)
    seq_lens = torch.tensor([4, 6, 2])
    with torch.no_grad():
        out = attention_layer(hidden, proj, impl, kv_cache, 2, seq_lens)
        q = proj(hidden)[:, : H * D].contiguous().view(-1, H, D)[2:]
        ref = trtllm_batch_decode_with_kv_cache(q, kv_cache, seq_lens, impl.scale)
    if not torch.allclose(out, ref, atol=1e-6):
        raise AssertionError("wrong values")
    print("ok", tuple(out.shape))


if __name__ == "__main__":
    main()
