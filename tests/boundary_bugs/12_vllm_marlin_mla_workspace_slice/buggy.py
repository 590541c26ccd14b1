"""Re-creation of vllm-project/vllm PR #15319 ("Fix non-contiguous input passed to
Marlin kernel"; context: PR #14447 thread, "RuntimeError('A is not contiguous')").

MLA chunked-prefill / prefix caching computes the context KV from a workspace
that holds [kv_c_normed | k_pe]; ``kv_c_normed = workspace[:toks][..., :kv_lora_rank]``
goes to ``kv_b_proj`` -> GPTQ-Marlin linear -> ``gptq_marlin_gemm``, whose
C++ entry does ``TORCH_CHECK(a.is_contiguous(), "A is not contiguous")``.
"""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import torch

from _support.raw import read_dense, torch_check


# ---- csrc/quantization/gptq_marlin/gptq_marlin.cu stand-in -----------------------
def gptq_marlin_gemm(a, b_q_weight, b_scales, size_m, size_n, size_k):
    torch_check(a.is_contiguous(), "A is not contiguous")
    A = read_dense(a).reshape(size_m, size_k)
    W = b_q_weight.float() * b_scales                      # dequantised (k, n)
    return A @ W


# ---- vllm/model_executor/layers/quantization/utils/marlin_utils.py ---------------
def apply_gptq_marlin_linear(input, weight, weight_scale, output_size_per_partition,
                             input_size_per_partition):
    reshaped_x = input.reshape(-1, input.shape[-1])
    out_shape = input.shape[:-1] + (output_size_per_partition,)
    output = gptq_marlin_gemm(reshaped_x, weight, weight_scale,  # bug-line
                              reshaped_x.shape[0], output_size_per_partition,
                              input_size_per_partition)
    return output.reshape(out_shape)


class MarlinLinear(torch.nn.Module):
    def __init__(self, k, n):
        super().__init__()
        self.k, self.n = k, n
        self.qweight = torch.randint(-8, 8, (k, n), dtype=torch.int8)
        self.scales = torch.rand(1, n) / 8

    def forward(self, x):
        return apply_gptq_marlin_linear(x, self.qweight, self.scales, self.n, self.k), None


def compute_prefill_context(workspace, toks, kv_b_proj, kv_lora_rank, num_heads):
    kv_c_normed = workspace[:toks][..., :kv_lora_rank]
    k_pe = workspace[:toks][..., kv_lora_rank:].unsqueeze(1)
    kv_nope = kv_b_proj(kv_c_normed)[0].view(-1, num_heads, kv_b_proj.n // num_heads)
    return kv_nope, k_pe


def main():
    torch.manual_seed(0)
    lora, rope, heads = 32, 8, 4
    workspace = torch.randn(16, lora + rope)
    proj = MarlinLinear(lora, 64)
    kv_nope, k_pe = compute_prefill_context(workspace, 10, proj, lora, heads)
    ref = (workspace[:10, :lora] @ (proj.qweight.float() * proj.scales)).view(-1, heads, 16)
    if not torch.allclose(kv_nope, ref, atol=1e-5):
        raise AssertionError("wrong values")
    print("ok", tuple(kv_nope.shape), tuple(k_pe.shape))


if __name__ == "__main__":
    main()
