"""Re-creation of vllm-project/vllm PR #19452 ("[Bugfix] Enforce contiguous input
for dynamic_per_token FP8/INT8 quant").

DeepSeek-V2-Lite FP8-dynamic: MLA feeds ``kv_c_normed`` -- a last-dim slice of
the latent workspace -- into ``kv_b_proj``; Fp8LinearOp.apply calls
``ops.scaled_fp8_quant(..., use_per_token_if_dynamic=True)`` which launches
``dynamic_per_token_scaled_fp8_quant``:
``RuntimeError: Expected input.is_contiguous() to be true, but got false.``
"""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import torch

from _support.raw import expect_contiguous, read_dense, write_dense

FP8_MAX = 448.0


# ---- csrc/quantization/fp8/common.cu stand-in ----------------------------------
def dynamic_per_token_scaled_fp8_quant(out, input, scales, scale_ub=None):
    expect_contiguous(out, "out")
    expect_contiguous(input, "input")
    x = read_dense(input).reshape(-1, input.shape[-1])
    s = (x.abs().amax(-1, keepdim=True) / FP8_MAX).clamp_min(1e-12)
    write_dense(scales, s)
    write_dense(out, (x / s).clamp(-FP8_MAX, FP8_MAX).round())


# ---- vllm/_custom_ops.py ----------------------------------------------------------
def scaled_fp8_quant(input, scale=None, use_per_token_if_dynamic=False):
    shape = input.shape
    output = torch.empty(shape, dtype=torch.float32)      # float8_e4m3fn on GPU
    if scale is None and use_per_token_if_dynamic:
        scale = torch.empty((shape[0], 1), dtype=torch.float32)
        dynamic_per_token_scaled_fp8_quant(output, input, scale, None)  # bug-line
    return output, scale


# ---- vllm/model_executor/layers/quantization/utils/w8a8_utils.py -------------------
class Fp8LinearOp:
    def apply(self, input, weight, weight_scale):
        input_2d = input.view(-1, input.shape[-1]) if input.dim() > 2 else input
        qinput, x_scale = scaled_fp8_quant(input_2d, use_per_token_if_dynamic=True)
        return (qinput @ weight.t()) * x_scale * weight_scale.t()


class Fp8Linear(torch.nn.Module):
    def __init__(self, in_f, out_f):
        super().__init__()
        w = torch.randn(out_f, in_f)
        self.weight_scale = w.abs().amax(1, keepdim=True) / FP8_MAX
        self.weight = (w / self.weight_scale).round()
        self.op = Fp8LinearOp()

    def forward(self, x):
        return self.op.apply(x, self.weight, self.weight_scale)


def mla_compute_kv(latent_workspace, kv_b_proj, kv_lora_rank):
    kv_c_normed = latent_workspace[..., :kv_lora_rank]
    return kv_b_proj(kv_c_normed)


def main():
    torch.manual_seed(0)
    lora, rope = 32, 8
    workspace = torch.randn(6, lora + rope)
    proj = Fp8Linear(lora, 16)
    out = mla_compute_kv(workspace, proj, lora)
    ref = proj(workspace[..., :lora].contiguous())
    if not torch.allclose(out, ref):
        raise AssertionError("wrong values")
    print("ok", tuple(out.shape))


if __name__ == "__main__":
    main()
