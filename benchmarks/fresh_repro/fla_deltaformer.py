"""fla-core 0.6.0 fla/ops/deltaformer/parallel.py: CTG106 (kernel launches at 65/88/96/120) and
CTG114 (calls at 528/536/571/639/700). Kernels recorded, not run (fla_harness.py); the
strideless read is emulated. Run with the deps folder holding triton (see fla_harness.py).
"""
import torch
import fla_harness as H
import fla.ops.deltaformer.parallel as P

H.patch(P, "parallel_deltaformer_fwd_kernel", "parallel_deltaformer_bwd_kernel_u",
        "parallel_deltaformer_bwd_kernel_row_sum", "parallel_deltaformer_bwd_kernel_qk")
P.invcum.forward_inplace = lambda u, w: None
P.invcum.backward_x = lambda do, w: do.clone()

torch.manual_seed(0)
B, T, Hh, D, C = 2, 10, 3, 8, 4
Hd = Hh * D
x = torch.randn(B, T, 16)
# the way fla/layers/deltaformer.py builds them: rearrange(linear(x), '... (h d) -> ... h d'), beta = sigmoid(linear(x))
q = torch.nn.Linear(16, Hd)(x).view(B, T, Hh, D)
k = torch.nn.Linear(16, Hd)(x).view(B, T, Hh, D)
v = torch.nn.Linear(16, Hd)(x).view(B, T, Hh, D)
beta = torch.nn.Linear(16, Hh)(x).sigmoid()
print(f"layer-built q/k/v/beta contiguous: {[t.is_contiguous() for t in (q, k, v, beta)]}")


class Ctx:
    pass


def run(label, cu=None, qq=q, kk=k, vv=v, bb=beta):
    print(f"== {label}")
    with torch.no_grad():
        u, ws, lses = P.ParallelDeltaformerFunction._forward_impl(qq, kk, vv, bb, C, True, cu_seqlens=cu)
        print(" forward (lines 639 non-varlen / 700 varlen -> kernel launch at 120):")
        H.show(kernels={"parallel_deltaformer_fwd_kernel"})
        ctx = Ctx(); ctx.C = C; ctx.cu_seqlens = cu; ctx.beta_is_none = bb is None
        ctx.saved_tensors = (qq, kk, vv, u, ws, lses, bb)
        grad_u = torch.randn(u.shape[0], u.shape[2], u.shape[1], u.shape[3]).transpose(1, 2)  # a strided gradient
        P.ParallelDeltaformerFunction.backward(ctx, grad_u)
        print(" backward (lines 528/571 -> launch 65; 536 -> launches 88/96), grad_u strided:")
        seen = set()
        for name, named in H.LAUNCHES:
            d = H.describe(named)
            if (name, d) not in seen:
                seen.add((name, d)); print(f"  {name}: {d}")
        H.LAUNCHES.clear()


run("non-varlen, B=2, T=10, C=4")
flat = lambda t: t.reshape(1, -1, *t.shape[2:])
run("varlen (cu_seqlens=[0,7,20]), B=1", cu=torch.tensor([0, 7, 20]), qq=flat(q), kk=flat(k), vv=flat(v), bb=flat(beta))
print("== for contrast: a caller passing head-major q (B, H, T, D).transpose(1, 2)")
qt = torch.randn(B, Hh, T, D).transpose(1, 2)
with torch.no_grad():
    P.ParallelDeltaformerFunction._forward_impl(qt, k, v, beta, C, True)
H.show(only={"q_ptr"}, kernels={"parallel_deltaformer_fwd_kernel"})
