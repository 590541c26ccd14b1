"""Re-creation of facebookresearch/xformers PR #282 ("Handle non-contiguous
grad_out and add checks for qkv"): "Fixes cases where we do
``attention().sum().backward()``, which has a non-contiguous ``grad_out``".

The grad of ``.sum()`` is a stride-0 expanded tensor; the CUDA
``efficient_attention_backward`` reads grad_out through its data pointer as a
dense [B, M, K] block -> wrong gradients.
"""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import torch

from _support.attn import attn_bwd, attn_fwd
from _support.raw import read_dense


# ---- xformers/components/attention/csrc stand-ins (legacy [B, M, K]) -------------
def efficient_attention(query, key, value, compute_logsumexp):
    outs = [attn_fwd(query[b][:, None], key[b][:, None], value[b][:, None], query.shape[-1] ** -0.5)
            for b in range(query.shape[0])]
    out = torch.stack([o[:, 0] for o, _ in outs])
    lse = torch.stack([l[0] for _, l in outs])
    return out, lse


def efficient_attention_backward(grad_out, query, key, value, lse, out):
    g = read_dense(grad_out)                               # grad_out.data_ptr<scalar_t>()
    res = [attn_bwd(g[b][:, None], query[b][:, None], key[b][:, None], value[b][:, None],
                    query.shape[-1] ** -0.5) for b in range(query.shape[0])]
    return tuple(torch.stack([r[i][:, 0] for r in res]) for i in range(3))


class MemoryEfficientAttentionOp(torch.autograd.Function):
    @staticmethod
    def forward(ctx, query, key, value):
        out, lse = efficient_attention(query, key, value, True)
        ctx.save_for_backward(query, key, value, lse, out)
        return out

    @staticmethod
    def backward(ctx, grad):
        query, key, value, lse, out = ctx.saved_tensors
        grad_q, grad_k, grad_v = efficient_attention_backward(grad.contiguous(), query, key, value, lse, out)
        return grad_q, grad_k, grad_v


def memory_efficient_attention(query, key, value):
    return MemoryEfficientAttentionOp.apply(query, key, value)


def main():
    torch.manual_seed(0)
    q, k, v = (torch.randn(2, 6, 8, requires_grad=True) for _ in range(3))
    memory_efficient_attention(q, k, v).sum().backward()
    got = [t.grad.clone() for t in (q, k, v)]
    refs = [t.detach().clone().requires_grad_() for t in (q, k, v)]
    o = torch.stack([attn_fwd(refs[0][b][:, None], refs[1][b][:, None], refs[2][b][:, None], 8 ** -0.5)[0]
                     for b in range(2)])
    o.sum().backward()
    if not all(torch.allclose(g, r.grad, atol=1e-5) for g, r in zip(got, refs)):
        raise AssertionError("wrong values")
    print("ok", [float(g.abs().sum()) for g in got])


if __name__ == "__main__":
    main()
