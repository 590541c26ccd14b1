"""Math reference for attention used by the flash-attn / xformers stand-ins.
Inputs are dense [total_tokens, heads, head_dim] (one sequence)."""
import torch


def attn_fwd(q, k, v, scale, causal=False):
    s = torch.einsum("qhd,khd->hqk", q, k) * scale
    if causal:
        n = s.shape[-1]
        s = s.masked_fill(torch.ones(n, n, dtype=torch.bool).triu(1), float("-inf"))
    lse = torch.logsumexp(s, -1)
    p = torch.exp(s - lse[..., None])
    return torch.einsum("hqk,khd->qhd", p, v), lse


def attn_bwd(dout, q, k, v, scale, causal=False):
    q, k, v = (t.detach().clone().requires_grad_() for t in (q, k, v))
    with torch.enable_grad():
        out, _ = attn_fwd(q, k, v, scale, causal)
        dq, dk, dv = torch.autograd.grad(out, (q, k, v), dout)
    return dq, dk, dv
