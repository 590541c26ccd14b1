"""Re-creation of NVIDIA/TransformerEngine PR #1017 ("[pyTorch] Fix wrong results
for noncontiguous input"): "A bug fix for LayerNorm and Linear modules when
given noncontiguous input ... the common library not accepting strides."

A QK-norm applies ``te.LayerNorm`` to ``q = qkv[:, :hidden]`` (a column slice
of the fused projection, strides (3*hidden, 1)).  ``inp.view(-1, hidden)``
succeeds without copying, and ``tex.layernorm_fwd`` walks rows of ``hidden``
contiguous elements from ``data_ptr()`` -> wrong output.
"""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import torch

from _support.raw import read_dense, write_dense


# ---- transformer_engine_torch (common library: no strides) ----------------------
def layernorm_fwd(inputmat, ln_weight, ln_bias, eps):
    x = read_dense(inputmat)
    mu = x.mean(-1, keepdim=True)
    rsigma = torch.rsqrt(x.var(-1, unbiased=False, keepdim=True) + eps)
    out = torch.empty(inputmat.shape, dtype=inputmat.dtype)
    write_dense(out, (x - mu) * rsigma * ln_weight + ln_bias)
    return out, mu.squeeze(-1), rsigma.squeeze(-1)


class _LayerNorm(torch.autograd.Function):
    @staticmethod
    def forward(ctx, inp, ln_weight, ln_bias, eps):
        in_features = ln_weight.numel()
        assert inp.shape[-1] == in_features, "LayerNorm not possible"
        inputmat = inp.view((-1, in_features))
        ln_out, mu, rsigma = layernorm_fwd(inputmat, ln_weight, ln_bias, eps)  # bug-line
        return ln_out.view_as(inp)


class LayerNorm(torch.nn.Module):
    def __init__(self, hidden_size, eps=1e-5):
        super().__init__()
        self.eps = eps
        self.weight = torch.nn.Parameter(torch.rand(hidden_size) + 0.5)
        self.bias = torch.nn.Parameter(torch.randn(hidden_size) * 0.1)

    def forward(self, inp):
        return _LayerNorm.apply(inp, self.weight, self.bias, self.eps)


class QKNormAttentionInput(torch.nn.Module):
    def __init__(self, hidden):
        super().__init__()
        self.hidden = hidden
        self.qkv = torch.nn.Linear(hidden, 3 * hidden)
        self.q_norm = LayerNorm(hidden)
        self.k_norm = LayerNorm(hidden)

    def forward(self, x):
        qkv = self.qkv(x)
        q, k, v = qkv.split(self.hidden, dim=-1)
        return self.q_norm(q), self.k_norm(k), v


def main():
    torch.manual_seed(0)
    m = QKNormAttentionInput(16)
    x = torch.randn(6, 16)
    with torch.no_grad():
        q, k, _ = m(x)
        rq, rk, _ = m.qkv(x).split(16, -1)
        ref_q = torch.nn.functional.layer_norm(rq, (16,), m.q_norm.weight, m.q_norm.bias, 1e-5)
    if not torch.allclose(q, ref_q, atol=1e-5):
        raise AssertionError("wrong values")
    print("ok", tuple(q.shape))


if __name__ == "__main__":
    main()
