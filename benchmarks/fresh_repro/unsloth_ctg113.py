"""CTG113 findings in unsloth 2026.10.9: is the tensor reaching .contiguous() already contiguous?
Short excerpts (file and line named per case) on realistic inputs, strided ones included.
"""
import torch
import torch.nn.functional as F

torch.manual_seed(0)
c = lambda t: t.is_contiguous()

print("== studio/.../diffusion_comfy_block.py:72 tile_scales and diffusion_nvfp4_ops.py:259 swizzle_sf: permute(0, 3, 2, 1, 4).reshape(-1).contiguous()")
for rows, blocks in [(128, 4), (300, 10), (1, 1), (256, 64)]:
    rp, bp = -(-rows // 128) * 128, -(-blocks // 4) * 4
    full = torch.zeros(rp, bp, dtype=torch.uint8); full[:rows, :blocks] = 1
    out = full.reshape(rp // 128, 4, 32, bp // 4, 4).permute(0, 3, 2, 1, 4).reshape(-1)
    v = full.reshape(rp, bp // 4, 4).reshape(rp // 128, 4, 32, bp // 4, 4).permute(0, 3, 2, 1, 4).reshape(-1)
    print(f"  {rows}x{blocks}: reshape(-1) result contiguous {c(out)} / {c(v)} (a 1-D view only exists with stride 1; otherwise reshape copies)")

print("== studio/.../video_minimax_h3_qknorm.py:40 reference_qk_norm_rope: torch.cat((xr, xp), dim=-1).contiguous()")
def ref(x, weight, cos, sin, eps=1e-6):
    x = F.rms_norm(x, (x.shape[-1],), weight, eps)
    rotary_dim = cos.shape[-1]
    xr = x[..., :rotary_dim]; xp = x[..., rotary_dim:]
    cos = cos.to(x.dtype)[None, :, None, :]; sin = sin.to(x.dtype)[None, :, None, :]
    x1, x2 = xr.chunk(2, dim=-1)
    rot = torch.cat((-x2, x1), dim=-1)
    xr = xr * cos + rot * sin
    return torch.cat((xr, xp), dim=-1)
B, S, Hh, D, R = 2, 5, 3, 16, 8
for x in [torch.randn(B, S, Hh, D), torch.randn(B, Hh, S, D).transpose(1, 2), torch.randn(B, S, D, Hh).transpose(2, 3)]:
    out = ref(x, torch.ones(D), torch.randn(S, R), torch.randn(S, R))
    print(f"  x stride {x.stride()}: cat result contiguous {c(out)}")

print("== unsloth/kernels/int4_packed.py:679 torch.stack((s, zero), -1).contiguous() (tinygemm)")
N, K, G = 64, 512, 128
scale = torch.rand(N, K // G, dtype=torch.bfloat16)
s = scale.reshape(N, -1).t()
for label, zero in [("zp None: zeros_like(s)", torch.zeros_like(s)),
                    ("zp given", ((8 - torch.randint(0, 16, (K // G, N))).float() * s.float()).to(s.dtype))]:
    st = torch.stack((s, zero), -1)
    print(f"  {label}: s stride {s.stride()}, zero stride {zero.stride()}; stack result stride {st.stride()} contiguous {c(st)}")

print("== unsloth/kernels/int4_packed.py:684 scale.t().contiguous().reshape(-1, 64)[:, perm].reshape(-1, N).contiguous() (marlin)")
N = 128
perm = torch.randperm(64)
scale = torch.rand(N, K // G, dtype=torch.float16)
ms = scale.t().contiguous().reshape(-1, 64)[:, perm].reshape(-1, N)
print(f"  advanced index [:, perm] of a contiguous 2-D tensor then reshape: contiguous {c(ms)}")

print("== unsloth/kernels/large_head_attention.py:631 `return lo, hi.expand(B, S).contiguous()` (_dense_intervals)")
for B, S in [(1, 6), (3, 6)]:
    hi = torch.arange(S, dtype=torch.int32)
    e = hi.expand(B, S)
    out = e.contiguous()
    print(f"  B={B}: expanded stride {e.stride()} contiguous {c(e)}; .contiguous() made a copy: {out.data_ptr() != e.data_ptr()}")

print("== unsloth/kernels/large_head_attention.py:681 `(lo.expand(B, S).contiguous(), hi.expand(B, S).contiguous())` (intervals_from_mask)")
for Bm, B, S in [(1, 4, 6), (4, 4, 6)]:
    mask = torch.tril(torch.ones(S, S, dtype=torch.bool)).expand(Bm, 1, S, S)
    idx = torch.arange(S, dtype=torch.int32)
    lo = torch.where(mask[:, 0], idx, S).amin(-1).to(torch.int32); hi = torch.where(mask[:, 0], idx, -1).amax(-1).to(torch.int32)
    e = lo.expand(B, S)
    print(f"  mask batch {Bm}, B={B}: lo (Bm, S) expanded stride {e.stride()} contiguous {c(e)}; .contiguous() copies: {e.contiguous().data_ptr() != e.data_ptr()}")

print("== unsloth/kernels/qk_norm_rope.py:457 position_ids.reshape(-1).to(dtype=torch.int32, device=Q.device).contiguous()")
T = 10
full = torch.arange(T).expand(3, T).clone()
cases = {"(B, S) int64": full[:, -4:], "decode (B, 1) slice int64": full[:, -1:], "(1, S) expanded to (B, S)": torch.arange(4).reshape(1, 4).expand(3, 4),
         "unsloth llama path: .view(-1, S).to(int32) of a (B, 1) slice": full[:, -1:].view(-1, 1).to(torch.int32),
         "a caller's strided int32 (B, 1) slice": full.to(torch.int32)[:, -1:]}
for label, p in cases.items():
    r = p.reshape(-1).to(dtype=torch.int32)
    print(f"  {label}: before .contiguous() contiguous {c(r)}")

print("== unsloth/models/reap.py:480/489 tensor.data.index_select(dim, index).contiguous()")
E3, din, dout = 8, 6, 5
keep = torch.tensor([0, 2, 5])
for label, t in [("(E, out, in) param", torch.randn(E3, dout, din)), ("transposed (E, in, out) view", torch.randn(E3, dout, din).transpose(1, 2)),
                 ("router (E, hidden)", torch.randn(E3, 16)), ("(hidden, E) with dim=-1", torch.randn(16, E3))]:
    dim = -1 if "dim=-1" in label else 0
    r = t.index_select(dim, keep)
    print(f"  {label}: index_select(dim={dim}) contiguous {c(r)}")
