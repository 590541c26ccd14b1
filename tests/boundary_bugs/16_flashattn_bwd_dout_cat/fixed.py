"""Re-creation of Dao-AILab/flash-attention#91 ("flash attn -> torch.cat results
in contiguous error").

The attention output is concatenated with another branch along the feature
dim; autograd's cat backward hands FlashAttn's backward a *slice* of the
incoming gradient, and ``flash_attn_cuda.bwd`` rejects it:
``RuntimeError: Expected dout.is_contiguous() to be true, but got false.``
Fixed in flash_attn_interface.py by making ``dout`` contiguous before the call.
"""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import torch

from _support.attn import attn_bwd, attn_fwd
from _support.raw import expect_contiguous, expect_last_dim_contiguous, read_dense, write_dense  # noqa: F401


# ---- csrc/flash_attn/fmha_api.cpp stand-ins ----------------------------------------
def flash_attn_cuda_fwd(q, k, v, out, softmax_scale, causal):
    for name, t in (("q", q), ("k", k), ("v", v)):
        expect_last_dim_contiguous(t, name)
    o, lse = attn_fwd(q, k, v, softmax_scale, causal)
    write_dense(out, o)
    return lse


def flash_attn_cuda_bwd(dout, q, k, v, out, softmax_lse, dq, dk, dv, softmax_scale, causal):
    expect_contiguous(dout, "dout")
    expect_contiguous(out, "out")
    g = attn_bwd(read_dense(dout), q, k, v, softmax_scale, causal)
    for dst, src in zip((dq, dk, dv), g):      # q/k/v/dq/dk/dv: row & head strides are passed
        dst.copy_(src)
    return softmax_lse


# ---- flash_attn/flash_attn_interface.py ------------------------------------------
def _flash_attn_backward(dout, q, k, v, out, softmax_lse, dq, dk, dv, softmax_scale, causal):
    dout = dout.contiguous()
    softmax_d = flash_attn_cuda_bwd(dout, q, k, v, out, softmax_lse, dq, dk, dv, softmax_scale, causal)
    return dq, dk, dv, softmax_d


class FlashAttnQKVPackedFunc(torch.autograd.Function):
    @staticmethod
    def forward(ctx, qkv, softmax_scale, causal):
        out = torch.empty_like(qkv[:, 0])
        lse = flash_attn_cuda_fwd(qkv[:, 0], qkv[:, 1], qkv[:, 2], out, softmax_scale, causal)
        ctx.save_for_backward(qkv, out, lse)
        ctx.softmax_scale, ctx.causal = softmax_scale, causal
        return out

    @staticmethod
    def backward(ctx, dout):
        qkv, out, lse = ctx.saved_tensors
        dqkv = torch.empty_like(qkv)
        _flash_attn_backward(dout, qkv[:, 0], qkv[:, 1], qkv[:, 2], out, lse,
                             dqkv[:, 0], dqkv[:, 1], dqkv[:, 2], ctx.softmax_scale, ctx.causal)
        return dqkv, None, None


class Block(torch.nn.Module):
    def __init__(self, h, d):
        super().__init__()
        self.h, self.d = h, d
        self.qkv = torch.nn.Linear(h * d, 3 * h * d)
        self.side = torch.nn.Linear(h * d, h * d)
        self.shared_out = torch.nn.Linear(2 * h * d, h * d)

    def forward(self, x):
        qkv = self.qkv(x).view(-1, 3, self.h, self.d)
        attn = FlashAttnQKVPackedFunc.apply(qkv, self.d ** -0.5, True).reshape(x.shape[0], -1)
        return self.shared_out(torch.cat([attn, self.side(x)], dim=-1))


def main():
    torch.manual_seed(0)
    blk = Block(2, 8)
    x = torch.randn(6, 16, requires_grad=True)
    blk(x).pow(2).sum().backward()
    g = x.grad.clone()
    x.grad = None
    qkv = blk.qkv(x).view(-1, 3, 2, 8)
    ref_attn = attn_fwd(qkv[:, 0], qkv[:, 1], qkv[:, 2], 8 ** -0.5, True)[0].reshape(6, -1)
    blk.shared_out(torch.cat([ref_attn, blk.side(x)], -1)).pow(2).sum().backward()
    if not torch.allclose(g, x.grad, atol=1e-5):
        raise AssertionError("wrong values")
    print("ok", float(g.abs().sum()))


if __name__ == "__main__":
    main()
