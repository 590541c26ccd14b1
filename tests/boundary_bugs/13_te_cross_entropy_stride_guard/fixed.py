"""Re-creation of NVIDIA/TransformerEngine#2734 ("cross_entropy_forward: stride
guard misses non-contiguous transposed input"), fixed by PR #2746.

``parallel_cross_entropy`` on ``logits.transpose(0, 1)`` ([B, S, V] view of a
[S, B, V] tensor, strides (V, B*V, 1)).  The guard only checks
``stride(-1) != 1``; the Triton kernel is launched over B*S flattened rows
with row stride ``stride(-2)`` -> silently wrong losses.
"""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import torch

from _support.triton_emu import tl, triton


@triton.jit
def cross_entropy_kernel(X_ptr, X_stride, Y_ptr, loss_ptr, n_cols, BLOCK_SIZE):
    program_id = tl.program_id(0)
    X_ptr = X_ptr + program_id * X_stride
    y = int(tl.load(Y_ptr + torch.tensor([program_id]))[0])
    offs = tl.arange(0, BLOCK_SIZE)
    x = tl.load(X_ptr + offs, mask=offs < n_cols, other=float("-inf"))
    m = tl.max(x, 0)
    lse = m + torch.log(tl.sum(tl.exp(x - m), 0))
    x_y = tl.load(X_ptr + torch.tensor([y]))[0]
    tl.store(loss_ptr + torch.tensor([program_id]), (lse - x_y).reshape(1))


def cross_entropy_forward(_input, target):
    B, SQ, V = _input.shape
    n_rows = B * SQ
    if _input.stride(-1) != 1 or _input.stride(-2) != _input.shape[-1]:
        _input = _input.contiguous()
    target = target.contiguous()
    loss_1d = torch.zeros(n_rows, dtype=torch.float32)
    cross_entropy_kernel[(n_rows,)](_input, _input.stride(-2), target, loss_1d, V,
                                    BLOCK_SIZE=triton.next_power_of_2(V))
    return loss_1d.reshape(B, SQ)


def parallel_cross_entropy(inp, target):
    return cross_entropy_forward(inp, target)


def main():
    s, b, v = 4, 2, 8
    torch.manual_seed(42)
    logits = torch.randn(s, b, v)                    # [S, B, V] (Megatron layout)
    target = torch.randint(0, v, (b, s))             # [B, S]
    logits_transposed = logits.transpose(0, 1)       # [B, S, V], stride (8, 16, 1)
    loss = parallel_cross_entropy(logits_transposed, target)
    ref = torch.nn.functional.cross_entropy(
        logits_transposed.reshape(-1, v), target.reshape(-1), reduction="none").reshape(b, s)
    if not torch.allclose(loss, ref, atol=1e-5):
        raise AssertionError("wrong values")
    print("ok", loss.tolist())


if __name__ == "__main__":
    main()
