"""Re-creation of Dao-AILab/flash-attention#355 ("Incorrect backward pass for
non-contiguous output grads").

``maybe_contiguous`` only fixes tensors whose last dim is strided; a dout that
is a transposed view (stride(-1) == 1) reaches ``flash_attn_cuda.bwd``, whose
kernel walked dO with the row/head strides of ``out`` -> silently wrong dq/dk/dv.
"When I uncomment the ``dout = dout.contiguous()`` however I get the correct output."
"""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import torch

from _support.attn import attn_bwd, attn_fwd
from _support.raw import _flat_storage


def maybe_contiguous(x):
    return x.contiguous() if x is not None and x.stride(-1) != 1 else x


# ---- csrc/flash_attn/flash_api.cpp stand-ins ([b, s, h, d]) ---------------------
def flash_attn_cuda_fwd(q, k, v, softmax_scale, causal):
    outs = [attn_fwd(q[b], k[b], v[b], softmax_scale, causal) for b in range(q.shape[0])]
    return torch.stack([o for o, _ in outs]), torch.stack([l for _, l in outs])


def flash_attn_cuda_bwd(dout, q, k, v, out, softmax_lse, softmax_scale, causal):
    # params.do_row_stride / do_head_stride were taken from `out`
    do = _flat_storage(dout).as_strided(dout.shape, out.stride(), dout.storage_offset())
    grads = [attn_bwd(do[b], q[b], k[b], v[b], softmax_scale, causal) for b in range(q.shape[0])]
    return tuple(torch.stack([g[i] for g in grads]) for i in range(3))


# ---- flash_attn/flash_attn_interface.py ------------------------------------------
def _flash_attn_backward(dout, q, k, v, out, softmax_lse, softmax_scale, causal):
    dout, q, k, v, out = [maybe_contiguous(x) for x in (dout, q, k, v, out)]
    return flash_attn_cuda_bwd(dout, q, k, v, out, softmax_lse, softmax_scale, causal)  # bug-line


class FlashAttnFunc(torch.autograd.Function):
    @staticmethod
    def forward(ctx, q, k, v, softmax_scale, causal):
        out, lse = flash_attn_cuda_fwd(q, k, v, softmax_scale, causal)
        ctx.save_for_backward(q, k, v, out, lse)
        ctx.softmax_scale, ctx.causal = softmax_scale, causal
        return out

    @staticmethod
    def backward(ctx, dout):
        q, k, v, out, lse = ctx.saved_tensors
        dq, dk, dv = _flash_attn_backward(dout, q, k, v, out, lse, ctx.softmax_scale, ctx.causal)
        return dq, dk, dv, None, None


def attention_layer(q, k, v):
    out = FlashAttnFunc.apply(q, k, v, q.shape[-1] ** -0.5, True)   # [b, s, h, d]
    return out.transpose(1, 2)                                     # [b, h, s, d] for the caller


def main():
    torch.manual_seed(0)
    q, k, v = (torch.randn(2, 5, 3, 8, requires_grad=True) for _ in range(3))
    w = torch.randn(2, 3, 5, 8)
    (attention_layer(q, k, v) * w).sum().backward()
    got = [t.grad.clone() for t in (q, k, v)]
    refs = [t.detach().clone().requires_grad_() for t in (q, k, v)]
    o = torch.stack([attn_fwd(refs[0][b], refs[1][b], refs[2][b], 8 ** -0.5, True)[0] for b in range(2)])
    (o.transpose(1, 2) * w).sum().backward()
    if not all(torch.allclose(g, r.grad, atol=1e-5) for g, r in zip(got, refs)):
        raise AssertionError("wrong values")
    print("ok", [float(g.abs().sum()) for g in got])


if __name__ == "__main__":
    main()
