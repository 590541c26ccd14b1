"""Re-creation of bitsandbytes-foundation/bitsandbytes#1342 (also #1690),
fixed by PR #1859 ("Handle non-contiguous tensors in quantize/dequantize ops").

functional.quantize_4bit -> CUDA backend ``_quantize_4bit_impl`` passes
``get_ptr(A)`` to ``cquantize_blockwise_fp16_nf4``; the kernel walks
``A.numel()`` elements from the pointer.  A strided slice ``x[:, ::2, :]`` is
therefore quantized from the wrong memory -- silently.
"""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import torch

from _support.raw import read_dense, write_dense

NF4 = torch.tensor([-1.0, -0.6962, -0.5251, -0.3949, -0.2844, -0.1848, -0.0911, 0.0,
                    0.0796, 0.1609, 0.2461, 0.3379, 0.4407, 0.5626, 0.7230, 1.0])


# ---- stand-ins for libbitsandbytes_cuda (raw pointer + n) --------------------
def cquantize_blockwise_fp32_nf4(A, absmax, out, blocksize, n):
    a = read_dense(A, numel=n).reshape(-1, blocksize)           # const float* A
    amax = a.abs().amax(1).clamp_min(1e-12)
    codes = (a / amax[:, None]).unsqueeze(-1).sub(NF4).abs().argmin(-1).to(torch.uint8)
    write_dense(absmax, amax)
    write_dense(out, codes[:, 0::2] << 4 | codes[:, 1::2])


def cdequantize_blockwise_fp32_nf4(A, absmax, out, blocksize, n):
    packed = read_dense(A).reshape(-1, blocksize // 2)
    codes = torch.stack([packed >> 4, packed & 0xF], -1).reshape(-1, blocksize).long()
    write_dense(out, NF4[codes] * read_dense(absmax)[:, None])


# ---- bitsandbytes/backends/cuda/ops.py ---------------------------------------
def _quantize_4bit_impl(A, blocksize, quant_type, quant_storage):
    n = A.numel()
    blocks = -(n // -blocksize)
    absmax = torch.empty((blocks,), dtype=torch.float32)
    out = torch.empty(((n + 1) // 2, 1), dtype=quant_storage)
    cquantize_blockwise_fp32_nf4(A, absmax, out, blocksize, n)  # bug-line
    return out, absmax


def _dequantize_4bit_impl(A, absmax, blocksize, shape, dtype):
    out = torch.empty(shape, dtype=dtype)
    cdequantize_blockwise_fp32_nf4(A, absmax, out, blocksize, out.numel())
    return out


# ---- bitsandbytes/functional.py -----------------------------------------------
def quantize_4bit(A, blocksize=64, quant_type="nf4", quant_storage=torch.uint8):
    out, absmax = _quantize_4bit_impl(A, blocksize, quant_type, quant_storage)
    state = {"absmax": absmax, "shape": A.shape, "dtype": A.dtype, "blocksize": blocksize}
    return out, state


def dequantize_4bit(A, state):
    return _dequantize_4bit_impl(A, state["absmax"], state["blocksize"], state["shape"], state["dtype"])


def main():
    torch.manual_seed(0)
    original_tensor = torch.randn(3, 8, 64)
    non_contiguous_tensor = original_tensor[:, ::2, :]
    q, st = quantize_4bit(non_contiguous_tensor)
    got = dequantize_4bit(q, st)
    qc, stc = quantize_4bit(non_contiguous_tensor.contiguous())
    ref = dequantize_4bit(qc, stc)
    n_diff = (got != ref).sum().item()
    if n_diff:
        raise AssertionError("wrong values")
    print("ok", tuple(got.shape))


if __name__ == "__main__":
    main()
