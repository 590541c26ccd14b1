"""Re-creation of pytorch/FBGEMM PR #2919 ("Fix triton fp8 handling of
non-contiguous inputs", reported in pytorch/FBGEMM#2713): the Triton fp8
row-quantize kernel "write[s] to the output tensor using the same strides as
the input, when the output is always allocated as contiguous ... non-contiguous
inputs would run fine but produce silently transposed outputs."
"""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import torch

from _support.triton_emu import tl, triton

MAX_FP8 = 448.0


@triton.jit
def _kernel_quantize_fp8_row(A, A_scale, A_fp8, M, N, stride_am, stride_an, stride_om, stride_on, BLOCK_SIZE):
    pid = tl.program_id(0)
    n_offset = tl.arange(0, BLOCK_SIZE)
    a = tl.load(A + pid * stride_am + n_offset * stride_an, mask=n_offset < N, other=0.0)
    cur_max = tl.max(a.abs(), 0).clamp_min(1e-12)
    a_scale = MAX_FP8 / cur_max
    tl.store(A_scale + torch.tensor([pid]), (1.0 / a_scale).reshape(1))
    a_fp8 = (a * a_scale).clamp(-MAX_FP8, MAX_FP8).round()
    tl.store(A_fp8 + pid * stride_om + n_offset * stride_on, a_fp8, mask=n_offset < N)


def triton_quantize_fp8_row(a):
    M, N = a.shape
    a_scale = torch.empty((M,), dtype=torch.float32)
    a_fp8 = torch.empty((M, N), dtype=torch.float32)      # torch.float8_e4m3fn on GPU
    _kernel_quantize_fp8_row[(M,)](a, a_scale, a_fp8, M, N, a.stride(0), a.stride(1),
                                   a_fp8.stride(0), a_fp8.stride(1),
                                   BLOCK_SIZE=triton.next_power_of_2(N))
    return a_fp8, a_scale


def quantize_fp8_row(a):
    return triton_quantize_fp8_row(a)


def fp8_weight_grad(grad_out, x):
    # dW = grad_out^T @ x with both operands row-quantized
    g_q, g_s = quantize_fp8_row(grad_out.t())
    x_q, x_s = quantize_fp8_row(x.t())
    return (g_q * g_s[:, None]) @ (x_q * x_s[:, None]).t()


def main():
    torch.manual_seed(0)
    grad_out, x = torch.randn(8, 4), torch.randn(8, 6)
    q, s = quantize_fp8_row(grad_out.t())
    ref_q, ref_s = quantize_fp8_row(grad_out.t().contiguous())
    if not (torch.equal(q, ref_q) and torch.equal(s, ref_s)):
        raise AssertionError("wrong values")
    dw = fp8_weight_grad(grad_out, x)
    print("ok", tuple(dw.shape), float((dw - grad_out.t() @ x).abs().max()))


if __name__ == "__main__":
    main()
