"""Re-creation of unslothai/unsloth PR #10617 ("fix: materialize strided
gradients before RMSNorm backward").

``Fast_RMS_Layernorm.backward`` flattens dY with ``reshape(-1, dim)`` (a view
whenever possible) and launches ``_rms_layernorm_backward`` with only
``dY.stride(0)``; the Triton kernel addresses ``dY + row*row_stride + col``,
assuming unit column stride.  A broadcast gradient (``out.sum().backward()``,
strides (0, 0)) is read from the wrong memory.
"""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import torch

from _support.triton_emu import tl, triton


@triton.jit
def _rms_layernorm_forward(Y, Y_row_stride, X, X_row_stride, W, r, n_cols, eps, BLOCK_SIZE):
    row_idx = tl.program_id(0)
    cols = tl.arange(0, BLOCK_SIZE)
    mask = cols < n_cols
    X_row = tl.load(X + row_idx * X_row_stride + cols, mask=mask, other=0.0)
    inv_var = 1.0 / torch.sqrt(tl.sum(X_row * X_row, 0) / n_cols + eps)
    tl.store(r + torch.tensor([row_idx]), inv_var.reshape(1))
    tl.store(Y + row_idx * Y_row_stride + cols, X_row * inv_var * tl.load(W + cols, mask=mask), mask=mask)


@triton.jit
def _rms_layernorm_backward(dY, dY_row_stride, X, X_row_stride, W, r, n_cols, BLOCK_SIZE):
    row_idx = tl.program_id(0)
    cols = tl.arange(0, BLOCK_SIZE)
    mask = cols < n_cols
    dY_row = tl.load(dY + row_idx * dY_row_stride + cols, mask=mask, other=0.0)
    X_row = tl.load(X + row_idx * X_row_stride + cols, mask=mask, other=0.0)
    W_row = tl.load(W + cols, mask=mask, other=0.0)
    inv_var = tl.load(r + torch.tensor([row_idx]))[0]
    normed = X_row * inv_var
    dY_W = dY_row * W_row
    rowsum = tl.sum(dY_W * normed, 0)
    tl.store(dY + row_idx * dY_row_stride + cols, inv_var / n_cols * (n_cols * dY_W - normed * rowsum), mask=mask)


class Fast_RMS_Layernorm(torch.autograd.Function):
    @staticmethod
    def forward(ctx, X, W, eps):
        shape = X.shape
        dim = shape[-1]
        X = X.reshape(-1, dim)
        n_rows, n_cols = X.shape
        Y = torch.empty((n_rows, n_cols), dtype=X.dtype)
        r = torch.empty(n_rows, dtype=torch.float32)
        _rms_layernorm_forward[(n_rows,)](Y, Y.stride(0), X, X.stride(0), W, r, n_cols, eps,
                                          BLOCK_SIZE=triton.next_power_of_2(n_cols))
        ctx.save_for_backward(X, W, r)
        return Y.view(*shape)

    @staticmethod
    def backward(ctx, dY):
        shape = dY.shape
        dim = shape[-1]
        dY = dY.reshape(-1, dim)
        X, W, r = ctx.saved_tensors
        n_rows, n_cols = dY.shape
        _rms_layernorm_backward[(n_rows,)](dY, dY.stride(0), X, X.stride(0), W, r, n_cols,  # bug-line
                                           BLOCK_SIZE=triton.next_power_of_2(n_cols))
        return dY.view(*shape), None, None


def fast_rms_layernorm(layernorm, X):
    return Fast_RMS_Layernorm.apply(X, layernorm.weight, layernorm.eps)


def main():
    torch.manual_seed(0)
    norm = torch.nn.RMSNorm(16, eps=1e-6)
    with torch.no_grad():
        norm.weight.uniform_(0.5, 1.5)
    x = torch.randn(2, 3, 16, requires_grad=True)
    fast_rms_layernorm(norm, x).sum().backward()
    x_ref = x.detach().clone().requires_grad_()
    norm(x_ref).sum().backward()
    if not torch.allclose(x.grad, x_ref.grad, atol=1e-4):
        raise AssertionError("wrong values")
    print("ok", float(x.grad.abs().sum()))


if __name__ == "__main__":
    main()
