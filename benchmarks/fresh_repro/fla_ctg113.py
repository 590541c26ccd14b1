"""CTG113 findings in fla-core 0.6.0: is the tensor reaching .contiguous() already contiguous on
every path? Real functions are called where they run on CPU (cyfa build_readout_table), the others
are short excerpts (file named per case) on realistic inputs, including strided ones where a caller
could pass them. Run with the deps folder holding triton (fla imports it).
"""
import torch
import fla_harness as H  # noqa: F401  (puts fla on sys.path)
from fla.utils.decorators import input_guard

torch.manual_seed(0)
c = lambda t: t.is_contiguous()

print("== causal_conv1d/backends/triton_ascend.py:1899 `if dy is not None and not dy.is_contiguous(): dy = dy.contiguous()`")
import inspect, fla.modules.causal_conv1d.ops as OPS
src = inspect.getsource(OPS)
print(f"  backward is decorated `@input_guard(no_guard_contiguous=[\"dy\"])`: {'@input_guard(no_guard_contiguous=[' + chr(34) + 'dy' + chr(34) + '])' in src}")
seen = {}
@input_guard(no_guard_contiguous=["dy"])
def bw(ctx, dy, dht=None):
    seen["dy"] = dy
bw(None, torch.randn(2, 4, 8).transpose(1, 2))
print(f"  so a strided upstream gradient reaches the backend unchanged: dy contiguous {seen['dy'].is_contiguous()} -> the guarded copy is needed there")

print("== fused_kl_div/triton_ascend.py:148 and fused_linear_cross_entropy/triton_ascend.py:291 (`c if c.is_contiguous() else c.contiguous()`)")
import torch.nn.functional as F
for x in [torch.randn(10, 16), torch.randn(16, 10).t(), torch.randn(10, 32)[:, ::2]]:
    w = torch.randn(24, 16); b = torch.randn(24)
    c_sl = F.linear(x[2:7], w); c_lg = F.linear(x[2:7], w, b)
    print(f"  x stride {x.stride()}: F.linear(x[start:end], weight) contiguous {c(c_sl)}, with bias {c(c_lg)}")

print("== cyfa/utils.py:166 build_readout_table: torch.matmul(readout.float(), basis).contiguous()")
from fla.ops.cyfa import utils as CU
orig = torch.Tensor.contiguous; got = []
def spy(self, *a, **k):
    got.append(self.is_contiguous()); return orig(self, *a, **k)
for readout in [torch.randn(4, 7, 7), torch.randn(4, 7, 7).transpose(1, 2), torch.randn(4, 7, 7, dtype=torch.bfloat16), torch.randn(7, 7, 4).permute(2, 0, 1)]:
    torch.Tensor.contiguous = spy
    try:
        CU.build_readout_table(readout)
    finally:
        torch.Tensor.contiguous = orig
print(f"  readout (H, S, S) contiguous / transposed / bf16 / permuted: tensor reaching .contiguous() contiguous {got}")

print("== dplr/backends/tilelang/layout.py:86/97/118/119 (cat / stack / arange * n of 1-D int32 tensors)")
cu = torch.tensor([0, 5, 17, 40], dtype=torch.int32); chunk = 8
lengths = cu[1:] - cu[:-1]
cps = torch.div(lengths + chunk - 1, chunk, rounding_mode="floor")
co = torch.cat([torch.zeros((1,), dtype=torch.int32), cps.cumsum(dim=0, dtype=torch.int32)], dim=0)
rows = torch.arange(8, dtype=torch.int32)
seq = torch.searchsorted(co, rows, right=True, out_int32=True) - 1
local = rows - co[seq.clamp(min=0, max=2)]
st = torch.stack([seq, local], dim=1)
B, T_, BT = 3, 20, 8; n = (T_ + BT - 1) // BT
seq2 = torch.arange(B, dtype=torch.int32).repeat_interleave(n); loc2 = torch.arange(n, dtype=torch.int32).repeat(B)
st2 = torch.stack([seq2, loc2], dim=1); ar = torch.arange(B + 1, dtype=torch.int32) * n
print(f"  86 cat contiguous {c(co)}; 97 stack contiguous {c(st)}; 118 stack contiguous {c(st2)}; 119 arange*n contiguous {c(ar)}")

print("== rwkv7/channel_mixing.py:286 dk1 = (dk @ key_weight.transpose(-2, -1)).view(-1, n_embd).contiguous()")
for go in [torch.randn(2, 5, 12), torch.randn(5, 2, 12).transpose(0, 1), torch.randn(10, 12)]:
    value_weight = torch.randn(48, 12); key_weight = torch.randn(12, 48)
    dk = go @ value_weight.transpose(-2, -1)
    dk1 = dk @ key_weight.transpose(-2, -1)
    print(f"  grad_output stride {go.stride()}: dk1 contiguous {c(dk1)}, view(-1, n_embd) contiguous {c(dk1.view(-1, 12))}")

print("== wall_attn/decode.py:295 g_cumsum[:, chunk_starts, :, :].contiguous()")
for g in [torch.randn(2, 20, 4, 8), torch.randn(2, 4, 20, 8).transpose(1, 2), torch.randn(2, 20, 8, 4).transpose(2, 3)]:
    cs = (torch.arange(3) * 8).clamp(max=19)
    r = g[:, cs, :, :]
    print(f"  g_cumsum stride {g.stride()}: advanced-index result stride {r.stride()} contiguous {c(r)}")
