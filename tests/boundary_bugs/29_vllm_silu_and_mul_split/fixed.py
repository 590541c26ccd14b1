"""Re-creation of vllm-project/vllm PR #3324 ("silu_and_mul kernel only supports
contiguous tensors"): "Non-contiguous tensors can also be run, but they will
output incorrect results ... When splitting the 'Fused Tensor' in two
(``tensor.split``) ... the 'MLP Tensor' became non-contiguous."

A parallel attention+MLP block (GPT-J/PaLM style) projects once and splits;
``SiluAndMul`` hands the ``gate_up`` view to ``ops.silu_and_mul``, whose CUDA
kernel indexes ``input[token * 2 * d + i]``.
"""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import torch
import torch.nn.functional as F

from _support.raw import read_dense, write_dense


# ---- csrc/activation_kernels.cu stand-in ---------------------------------------------
def silu_and_mul(out, input):
    d = input.size(-1) // 2
    x = read_dense(input).reshape(-1, 2 * d)             # input[token_idx * 2 * d + idx]
    write_dense(out, F.silu(x[:, :d]) * x[:, d:])


class SiluAndMul(torch.nn.Module):
    def forward(self, x):
        d = x.shape[-1] // 2
        out = torch.empty(x.shape[:-1] + (d,), dtype=x.dtype)
        silu_and_mul(out, x.contiguous())
        return out


class ParallelAttnMLPBlock(torch.nn.Module):
    def __init__(self, hidden, inter):
        super().__init__()
        self.qkv_size, self.inter = 3 * hidden, inter
        self.fused_proj = torch.nn.Linear(hidden, 3 * hidden + 2 * inter, bias=False)
        self.down = torch.nn.Linear(inter, hidden, bias=False)
        self.act_fn = SiluAndMul()

    def forward(self, x):
        fused = self.fused_proj(x)
        qkv, gate_up = fused.split([self.qkv_size, 2 * self.inter], dim=-1)
        return qkv, self.down(self.act_fn(gate_up))


def main():
    torch.manual_seed(0)
    blk = ParallelAttnMLPBlock(8, 16)
    x = torch.randn(5, 8)
    with torch.no_grad():
        _, mlp_out = blk(x)
        gate_up = blk.fused_proj(x)[:, 24:]
        ref = blk.down(F.silu(gate_up[:, :16]) * gate_up[:, 16:])
    if not torch.allclose(mlp_out, ref, atol=1e-6):
        raise AssertionError("wrong values")
    print("ok", tuple(mlp_out.shape))


if __name__ == "__main__":
    main()
