"""Re-creation of bitsandbytes-foundation/bitsandbytes#1995, fixed by PR #1996
("Handle non-contiguous inputs in CPU blockwise quantize/dequantize").

The CPU backend's ``quantize_blockwise`` kernel passes ``get_ptr(A)`` to the
native library, which walks ``n`` floats from the pointer; a strided slice
(``A_full[::2, :]``) is read "in physical order" -> silently wrong codes.
"""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import torch

from _support.raw import read_dense, write_dense

CODE = torch.linspace(-1.0, 1.0, 256)          # stand-in for create_dynamic_map()


# ---- libbitsandbytes_cpu stand-ins: (code*, A*, absmax*, out*, blocksize, n) ----
def cquantize_blockwise_cpu_fp32(code, A, absmax, out, blocksize, n):
    a = read_dense(A, numel=n).reshape(-1, blocksize)
    amax = a.abs().amax(1).clamp_min(1e-12)
    q = (a / amax[:, None]).unsqueeze(-1).sub(code).abs().argmin(-1).to(torch.uint8)
    write_dense(absmax, amax)
    write_dense(out, q)


def cdequantize_blockwise_cpu_fp32(code, A, absmax, out, blocksize, n):
    q = read_dense(A, numel=n).reshape(-1, blocksize).long()
    write_dense(out, code[q] * read_dense(absmax)[:, None])


# ---- bitsandbytes/backends/cpu/ops.py ------------------------------------------
def quantize_blockwise(A, code, blocksize):
    n = A.numel()
    blocks = -(n // -blocksize)
    absmax = torch.empty((blocks,), dtype=torch.float32)
    out = torch.empty_like(A, dtype=torch.uint8)
    cquantize_blockwise_cpu_fp32(code, A, absmax, out, blocksize, n)  # bug-line
    return out, absmax


def dequantize_blockwise(A, absmax, code, blocksize, dtype):
    out = torch.empty_like(A, dtype=dtype)
    cdequantize_blockwise_cpu_fp32(code, A, absmax, out, blocksize, A.numel())
    return out


# ---- bitsandbytes/functional.py ------------------------------------------------
def F_quantize_blockwise(A, blocksize=64):
    q, absmax = quantize_blockwise(A, CODE, blocksize)
    return q, (absmax, blocksize, A.dtype)


def F_dequantize_blockwise(q, state):
    absmax, blocksize, dtype = state
    return dequantize_blockwise(q, absmax, CODE, blocksize, dtype)


def main():
    torch.manual_seed(0)
    A_full = torch.randn(64, 128)
    A_noncontig = A_full[::2, :]
    qn, sn = F_quantize_blockwise(A_noncontig)
    qc, sc = F_quantize_blockwise(A_noncontig.contiguous())
    if not torch.equal(qn.contiguous(), qc) or not torch.equal(sn[0], sc[0]):
        raise AssertionError("wrong values")
    rec = F_dequantize_blockwise(qc, sc)
    print("ok", float((rec - A_noncontig).abs().max()))


if __name__ == "__main__":
    main()
